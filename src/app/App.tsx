import { useEffect } from 'react';
import { Composer } from '../features/chat/Composer';
import { ConversationTools } from '../features/chat/ConversationTools';
import { MessageList } from '../features/chat/MessageList';
import { Notices } from '../features/chat/Notices';
import { useImageInputs } from '../features/chat/useImageInputs';
import { ModelStatus } from '../features/models/ModelStatus';
import { OfflineBadge } from '../features/offline/OfflineBadge';
import { PoolPanel } from '../features/pool/PoolPanel';
import { startApp } from './startApp';

export function App() {
  const { dragging } = useImageInputs();
  useEffect(() => {
    startApp();
  }, []);

  return (
    <div className="mx-auto flex h-dvh max-w-4xl flex-col gap-3 p-3">
      <header className="flex flex-wrap items-center gap-3">
        <h1 className="text-xl font-semibold text-slate-900">MMDialog in the browser</h1>
        <OfflineBadge />
        <div className="ml-auto">
          <ConversationTools />
        </div>
      </header>
      <ModelStatus />
      <main className={`relative flex min-h-0 flex-1 flex-col overflow-hidden rounded-xl bg-slate-50 ring-1 ${dragging ? 'ring-4 ring-blue-500' : 'ring-slate-200'}`}>
        {dragging && (
          <div className="pointer-events-none absolute inset-0 z-10 flex items-center justify-center bg-blue-50/80 text-lg font-medium text-blue-900">Drop photos to add them to your message</div>
        )}
        <Notices />
        <MessageList />
        <Composer />
      </main>
      <PoolPanel />
    </div>
  );
}
