import { errorMessage } from '../../engine/errors';
import { defaultPackId } from '../../engine/pack/defaultPack';
import { poolRef } from '../../shared/demoPool';
import { engine } from '../../shared/engine';
import { type CaptionerSummary, type DetectorSummary, type PackSummary, modelActions } from '../../shared/stores/modelStore';
import { noticeActions } from '../../shared/stores/noticeStore';
import { useSettingsStore } from '../../shared/stores/settingsStore';

function choosePack(packs: PackSummary[], wanted: string | null): PackSummary | undefined {
  const fallback = defaultPackId(packs.map((p) => p.id));
  return packs.find((p) => p.id === wanted) ?? packs.find((p) => p.id === fallback);
}

export async function loadModels(): Promise<void> {
  const base = `${import.meta.env.BASE_URL}models/`;
  let packs: PackSummary[];
  let detector: DetectorSummary | null;
  let captioner: CaptionerSummary | null;
  try {
    const response = await fetch(`${base}index.json`);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const index = (await response.json()) as { packs: PackSummary[]; detector?: DetectorSummary | null; captioners?: CaptionerSummary[] };
    packs = index.packs;
    // An index written before the detector was served has no "detector": the worker then says it is missing.
    detector = index.detector ?? null;
    // The first captioning pack, when models/ has one, writes the photos' captions.
    captioner = index.captioners?.[0] ?? null;
  } catch (error) {
    modelActions.failed(`The list of model packs (${base}index.json) could not be loaded: ${errorMessage(error)}. Check that the demo server is running and reload.`, []);
    return;
  }
  const { packId, forceWasm, poolId } = useSettingsStore.getState();
  // ?pack=<id> in the address wins over the saved choice, so a presenter can link a pack.
  const linked = new URLSearchParams(window.location.search).get('pack');
  if (linked && !packs.some((p) => p.id === linked)) {
    noticeActions.notify('error', `The address asks for the model pack "${linked}", which is not in models/. Using the default instead.`);
  }
  const pack = choosePack(packs, linked && packs.some((p) => p.id === linked) ? linked : packId);
  if (!pack) {
    modelActions.failed('No model pack was found in models/. Run "npm run models:test-pack" (see README) and reload.', packs);
    return;
  }
  modelActions.startLoading(packs, pack.id);
  try {
    const loaded = await engine().call(
      'loadPack',
      {
        pack: { id: pack.id, baseUrl: `${base}${pack.id}/`, files: pack.files.map((f) => f.path) },
        detector: detector ? { baseUrl: `${base}${detector.dir}/`, files: detector.files.map((f) => f.path) } : null,
        captioner: captioner ? { id: captioner.id, baseUrl: `${base}${captioner.id}/`, files: captioner.files.map((f) => f.path) } : null,
        pool: poolRef(poolId),
        forceWasm,
      },
      (p) => modelActions.fileProgress(p.file, { loaded: p.loaded, total: p.total }),
    );
    modelActions.ready(loaded.loadMs, loaded.pool, loaded.backend, loaded.methods, loaded.detector, loaded.captioner);
  } catch (error) {
    if (poolId !== 'demo') {
      // A stored dataset that cannot be used must not keep the demo from starting.
      noticeActions.notify('error', `The chosen pool could not be loaded: ${errorMessage(error)} Using the demo pool.`);
      useSettingsStore.getState().setPoolId('demo');
      return loadModels();
    }
    modelActions.failed(errorMessage(error));
  }
}
