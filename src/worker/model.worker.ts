/// <reference lib="webworker" />
import { WorkerModels } from './workerModels';
import { ClevrService } from './clevrService';
import { SharedVideos } from './sharedVideos';
import { combineOwners } from './workerOwners';
import type { WorkerApi } from './requestHandler';
import type { WorkerEvent } from '../protocol/protocol';
import { createRequestHandler } from './requestHandler';
import { WorkerHeartbeat } from '../protocol/heartbeat';
import { prepareVisitorScreen } from '../engine/safety/visitorScreen';
import { prepareAboutTheDemo } from '../engine/response/aboutTheDemo';

declare const self: DedicatedWorkerGlobalScope;

/**
 * Warm-up steps wait for a second without a visitor's request: turns sent one after another, and a
 * sample prompt clicked at Ready, do not wait behind a step that makes a session (bench -- browser).
 */
const IDLE_QUIET_MS = 1000;

const post = (event: WorkerEvent) => self.postMessage(event);
const heartbeat = new WorkerHeartbeat(post);
const models = new WorkerModels();
models.useBusyMarker(() => heartbeat.busy());
// Each handler belongs to one owner; the request handler sees them as one API (workerOwners.ts).
const runtime = (forceWasm: boolean) => models.runtime(forceWasm);
const clevr = new ClevrService(runtime);
const videos = new SharedVideos(runtime, () => models.photoPath());
// A turn about a video is a reply like any other; its questions rank with the video models' rankers.
models.useVideoRankers((avsd, forceWasm) => videos.rankers(avsd, forceWasm));
const api: WorkerApi = combineOwners(models, models.references, models.datasets, models.training, clevr, videos);
const handle = createRequestHandler(api, post, undefined, IDLE_QUIET_MS);
// Busy from a request's arrival until its answer, so the page allows the silence of a long model run.
self.addEventListener('message', (message: MessageEvent<unknown>) => void heartbeat.during(() => handle(message.data)));
// The first turn's pattern lists, compiled in a gap of the pack's load (it waits on files) rather than in that turn.
setTimeout(() => {
  prepareVisitorScreen();
  prepareAboutTheDemo();
}, 0);
