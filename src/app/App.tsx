import { useCallback, useEffect, useRef, useState } from 'react';
import { Composer } from '../features/chat/Composer';
import { ConversationTools } from '../features/chat/ConversationTools';
import { MessageList } from '../features/chat/MessageList';
import { useChatStore } from '../features/chat/chatStore';
import { useImageInputs } from '../features/chat/useImageInputs';
import { Inspector } from '../features/inspector/Inspector';
import { KioskCountdown } from '../features/kiosk/KioskCountdown';
import { selectConfigLocked, useKioskStore } from '../features/kiosk/kioskStore';
import { SessionMetricsPanel } from '../features/metrics/SessionMetricsPanel';
import { ModelStatus } from '../features/models/ModelStatus';
import { OfflineBadge } from '../features/offline/OfflineBadge';
import { PoolPanel } from '../features/pool/PoolPanel';
import { ReplayView } from '../features/replay/ReplayView';
import { ClevrView } from '../features/clevr/ClevrView';
import { clevrLinkFromAddress } from '../features/clevr/clevrController';
import { SHORTCUTS } from '../shared/keyCommands';
import { panelActions, usePanelStore } from '../shared/stores/panelStore';
import { MenuPanel } from '../shared/ui/MenuPanel';
import { Notices } from '../shared/ui/Notices';
import { NARROW_SCREEN, useMediaQuery } from '../shared/ui/useMediaQuery';
import { useViewStore } from '../shared/view/viewStore';
import { startApp } from './startApp';

const BUTTON =
  'rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm hover:bg-slate-100 focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600';

/** The inspector looks at the chat's last reply; connected here, so neither feature imports the other. */
function ChatInspector({ returnFocusTo }: { returnFocusTo: () => HTMLElement | null }) {
  const messages = useChatStore((s) => s.messages);
  return <Inspector messages={messages} returnFocusTo={returnFocusTo} />;
}

export function App() {
  const { dragging } = useImageInputs();
  const inspectorOpen = usePanelStore((s) => s.inspectorOpen);
  const kiosk = useKioskStore((s) => s.enabled);
  // In kiosk mode configuration stays hidden until Ctrl+Alt+S.
  const configLocked = useKioskStore(selectConfigLocked);
  // The composer starts empty after a kiosk reset.
  const resets = useKioskStore((s) => s.resets);
  const inspectorButton = useRef<HTMLButtonElement>(null);
  const inspectorReturnFocus = useCallback(() => inspectorButton.current, []);
  // Replay and CLEVR-Dialog are separate views: the chat underneath stays as it was. ?clevr=<seed>:<scene> opens the CLEVR-Dialog view.
  const [view, setView] = useState<'chat' | 'replay' | 'clevr'>(() => (clevrLinkFromAddress(window.location.search) ? 'clevr' : 'chat'));
  const viewButton = (v: typeof view, label: string) => (
    <button
      type="button"
      aria-pressed={view === v}
      onClick={() => setView(v)}
      className={`rounded-lg px-3 py-1.5 text-sm focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600 ${view === v ? 'bg-slate-800 text-white' : 'border border-slate-300 hover:bg-slate-100'}`}
    >
      {label}
    </button>
  );
  const narrow = useMediaQuery(NARROW_SCREEN);
  const presenter = useViewStore((s) => s.view) === 'presenter';
  useEffect(() => {
    startApp();
  }, []);

  const inspectorToggle = (
    <button
      ref={inspectorButton}
      type="button"
      onClick={() => panelActions.toggleInspector()}
      aria-expanded={inspectorOpen}
      aria-controls={inspectorOpen ? 'inspector' : undefined}
      aria-keyshortcuts={SHORTCUTS.inspector}
      className={`${BUTTON} shrink-0 ${inspectorOpen ? 'bg-blue-50 ring-1 ring-blue-400' : ''}`}
    >
      Inspector{' '}
      <kbd aria-hidden="true" className="ml-1 rounded border border-slate-400 px-1 text-xs">
        {SHORTCUTS.inspector}
      </kbd>
    </button>
  );
  const viewNav = (
    <nav aria-label="View" className="flex flex-wrap gap-1">
      {viewButton('chat', 'Chat')}
      {viewButton('replay', 'Replay a reference dialogue')}
      {viewButton('clevr', 'CLEVR-Dialog')}
    </nav>
  );

  return (
    <div
      className={`mx-auto flex h-dvh w-full flex-col ${presenter ? 'gap-3 p-3' : 'gap-2 p-2'} ${kiosk ? 'max-w-none' : inspectorOpen ? 'max-w-7xl' : 'max-w-4xl'}`}
      data-kiosk={kiosk}
      data-view={presenter ? 'presenter' : 'visitor'}
    >
      {narrow || !presenter ? (
        // One row: the rest waits in the menu. The visitor view keeps only whether the model is ready.
        <header className="flex flex-wrap items-center gap-2">
          <h1 className={`${presenter ? 'flex-1' : ''} truncate text-lg font-semibold text-slate-900 md:text-xl`}>
            {narrow ? 'MMDialog' : 'MMDialog in the browser'}
          </h1>
          {!presenter && <ModelStatus kiosk={kiosk} configLocked={configLocked} presenter={false} />}
          {inspectorToggle}
          <MenuPanel label="Menu" className="shrink-0">
            <OfflineBadge />
            {viewNav}
            <ConversationTools />
            {!presenter && (
              <div className="flex flex-wrap gap-2">
                {!configLocked && (
                  <button type="button" onClick={() => panelActions.setSettingsOpen(true)} className={BUTTON}>
                    Settings
                  </button>
                )}
                {!configLocked && (
                  <button type="button" onClick={() => panelActions.openPool('pool')} className={BUTTON}>
                    Pool and datasets
                  </button>
                )}
                <button type="button" onClick={() => panelActions.openPool('credits')} className={BUTTON}>
                  Credits
                </button>
              </div>
            )}
          </MenuPanel>
        </header>
      ) : (
        <header className="flex flex-wrap items-center gap-2">
          <h1 className="text-lg font-semibold text-slate-900 sm:text-xl">MMDialog in the browser</h1>
          <OfflineBadge />
          {viewNav}
          <div className="ml-auto flex flex-wrap gap-2">
            {inspectorToggle}
            <ConversationTools />
          </div>
        </header>
      )}
      {presenter && <ModelStatus kiosk={kiosk} configLocked={configLocked} />}
      {/* The chat's floor: open Settings or a long status never squeeze the conversation and the message box off screen. */}
      <div className={`flex min-h-[min(20rem,50dvh)] flex-1 ${presenter ? 'gap-3' : 'gap-2'}`}>
        <main
          className={`relative flex min-h-0 min-w-0 flex-1 flex-col overflow-hidden rounded-xl bg-slate-50 ring-1 ${dragging ? 'ring-4 ring-blue-500' : 'ring-slate-200'}`}
        >
          {dragging && (
            <div className="pointer-events-none absolute inset-0 z-10 flex items-center justify-center bg-blue-50/80 text-lg font-medium text-blue-900">
              Drop photos to add them to your message
            </div>
          )}
          <Notices />
          {/* The chat stays mounted while replaying, so a half-typed message survives the switch. */}
          <div className={`min-h-0 flex-1 flex-col ${view === 'chat' ? 'flex' : 'hidden'}`}>
            <MessageList presenter={presenter} />
            <Composer key={resets} compact={!presenter} />
          </div>
          {view === 'replay' && <ReplayView metrics={<SessionMetricsPanel />} />}
          {view === 'clevr' && <ClevrView />}
        </main>
        {inspectorOpen && <ChatInspector returnFocusTo={inspectorReturnFocus} />}
      </div>
      {/* The running means and the key hints are for the presenter; a visitor's screen is the chat. */}
      {presenter && view === 'chat' && <SessionMetricsPanel compact />}
      {presenter && (
        <footer className="hidden text-xs text-slate-700 md:block" data-testid="shortcuts">
          {kiosk
            ? `Press ${SHORTCUTS.inspector} for the inspector.`
            : `Keys: ${SHORTCUTS.inspector} inspector (outside the message box) · ${SHORTCUTS.kiosk} kiosk mode · ${SHORTCUTS.settings} pack and method options`}
        </footer>
      )}
      <KioskCountdown />
      <PoolPanel configLocked={configLocked} />
    </div>
  );
}
