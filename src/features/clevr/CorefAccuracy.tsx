import { percent } from '../../engine/clevr/clevrEvaluation';
import { clevrModelName } from '../../engine/clevr/clevrModels';
import { useClevrStore } from './clevrStore';

/** The visit's running accuracy by coreference distance (as the paper's Fig. 4), and overall. */
export function CorefAccuracy() {
  const accuracy = useClevrStore((s) => s.accuracy);
  const model = useClevrStore((s) => s.model);
  const overall = percent(accuracy.overall);
  return (
    <section aria-labelledby="clevr-accuracy-title" className="rounded-lg bg-white p-3 ring-1 ring-slate-200" data-testid="clevr-accuracy">
      <h3 id="clevr-accuracy-title" className="text-sm font-semibold text-slate-900">
        Running accuracy of {clevrModelName(model)}
      </h3>
      <p className="text-sm text-slate-800">
        {accuracy.overall.total === 0 ? 'No answers yet.' : `${accuracy.overall.right} of ${accuracy.overall.total} answers right (${overall.toFixed(0)}%).`}
      </p>
      <table className="mt-2 w-full text-xs">
        <caption className="text-left text-slate-700">
          By coreference distance: how many rounds back “it”, “them” or “the earlier …” was last mentioned.
        </caption>
        <thead>
          <tr className="text-left text-slate-700">
            <th scope="col" className="w-16 font-medium">
              Rounds back
            </th>
            <th scope="col" className="font-medium">
              Right
            </th>
            <th scope="col" className="w-1/2 font-medium">
              <span className="sr-only">Bar</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {accuracy.corefDistance.map((t, i) => {
            const p = percent(t);
            return (
              <tr key={i} data-testid={`clevr-distance-${i + 1}`}>
                <th scope="row" className="py-0.5 text-left font-normal">
                  {i === 9 ? '10+' : i + 1}
                </th>
                <td>{t.total === 0 ? '–' : `${t.right}/${t.total}`}</td>
                <td>
                  <div className="h-2.5 rounded bg-slate-100" aria-hidden="true">
                    {t.total > 0 && <div className="h-2.5 rounded bg-blue-600" style={{ width: `${p}%` }} />}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
