import { useEffect, useState } from 'react';
import { Composer } from '../features/chat/Composer';
import { MessageList } from '../features/chat/MessageList';
import { Notices } from '../features/chat/Notices';
import { useImageInputs } from '../features/chat/useImageInputs';
import { ModelStatus } from '../features/models/ModelStatus';
import { SessionMetricsPanel } from '../features/metrics/SessionMetricsPanel';
import { PoolPanel } from '../features/pool/PoolPanel';
import { ReplayView } from '../features/replay/ReplayView';
import { startNewConversation } from './chatController';
import { startApp } from './startApp';

export function App() {
  const { dragging } = useImageInputs();
  // Replay is a separate view: the chat underneath stays as it was.
  const [view, setView] = useState<'chat' | 'replay'>('chat');
  const viewButton = (v: typeof view, label: string) => (
    <button type="button" aria-pressed={view === v} onClick={() => setView(v)} className={`rounded-lg px-3 py-1.5 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600 ${view === v ? 'bg-slate-800 text-white' : 'border border-slate-300 hover:bg-slate-100'}`}>
      {label}
    </button>
  );
  useEffect(() => {
    startApp();
  }, []);

  return (
    <div className="mx-auto flex h-dvh max-w-4xl flex-col gap-3 p-3">
      <header className="flex items-center justify-between">
        <h1 className="text-xl font-semibold text-slate-900">MMDialog in the browser</h1>
        <nav aria-label="View" className="flex gap-1">
          {viewButton('chat', 'Chat')}
          {viewButton('replay', 'Replay a reference dialogue')}
        </nav>
        <button type="button" onClick={() => void startNewConversation()} className="rounded-lg border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600">
          New conversation
        </button>
      </header>
      <ModelStatus />
      <main className={`relative flex min-h-0 flex-1 flex-col overflow-hidden rounded-xl bg-slate-50 ring-1 ${dragging ? 'ring-4 ring-blue-500' : 'ring-slate-200'}`}>
        {dragging && (
          <div className="pointer-events-none absolute inset-0 z-10 flex items-center justify-center bg-blue-50/80 text-lg font-medium text-blue-900">Drop photos to add them to your message</div>
        )}
        <Notices />
        {/* The chat stays mounted while replaying, so a half-typed message survives the switch. */}
        <div className={`min-h-0 flex-1 flex-col ${view === 'chat' ? 'flex' : 'hidden'}`}>
          <MessageList />
          <Composer />
        </div>
        {view === 'replay' && <ReplayView />}
      </main>
      {view === 'chat' && <SessionMetricsPanel compact />}
      <PoolPanel />
    </div>
  );
}
