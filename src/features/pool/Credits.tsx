import { useMemo, useState } from 'react';
import type { PoolMediaItem } from '../../engine/datasets/poolCatalogue';
import type { TextCredit } from '../../shared/demoPool';

const PAGE = 60;

/** The demo pool's texts by source, and every image with its source, author and licence; renders only. */
export function Credits({
  items,
  texts,
  error,
  imageUrl,
}: {
  items: PoolMediaItem[] | null;
  texts: TextCredit[] | null;
  error: string | null;
  imageUrl: (item: PoolMediaItem) => string;
}) {
  const [query, setQuery] = useState('');
  const [shown, setShown] = useState(PAGE);
  const licences = useMemo(() => {
    const counts = new Map<string, number>();
    for (const item of items ?? []) counts.set(item.licence, (counts.get(item.licence) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]);
  }, [items]);
  const matching = useMemo(() => {
    const q = query.trim().toLowerCase();
    return (items ?? []).filter((i) => !q || `${i.alt} ${i.author ?? ''} ${i.licence} ${i.source}`.toLowerCase().includes(q));
  }, [items, query]);

  if (error)
    return (
      <p role="alert" className="rounded-lg bg-red-50 p-3 text-red-900">
        {error}
      </p>
    );
  if (!items || !texts) return <p role="status">Loading credits…</p>;
  return (
    <div className="flex min-h-0 flex-col gap-3">
      <section aria-label="Text credits" className="text-sm text-slate-700">
        <p>
          The demo pool holds <strong data-testid="text-credits-count">{texts.reduce((n, t) => n + t.texts, 0).toLocaleString('en')}</strong> texts to reply
          with:
        </p>
        <ul className="ml-4 list-disc" data-testid="text-credits">
          {texts.map((t) => (
            <li key={t.source?.id ?? 'written'}>
              {t.texts.toLocaleString('en')}{' '}
              {t.source ? (
                <>
                  from{' '}
                  <a className="underline" href={t.source.url} target="_blank" rel="noreferrer">
                    {t.source.name}
                  </a>{' '}
                  ({t.source.credit}), licence <span data-testid="text-credit-licence">{t.source.licence}</span>
                </>
              ) : (
                'written for this project (CC0)'
              )}
            </li>
          ))}
        </ul>
      </section>
      <p className="text-sm text-slate-700">
        The demo pool holds <strong data-testid="credits-count">{items.length}</strong> openly licensed images. By licence:{' '}
        <span data-testid="licence-breakdown">{licences.map(([licence, n]) => `${licence} ${n}`).join(' · ')}</span>.
      </p>
      <label className="flex items-center gap-2 text-sm">
        Search credits
        <input
          type="search"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setShown(PAGE);
          }}
          className="flex-1 rounded border border-slate-300 px-2 py-1"
          placeholder="author, licence or subject"
        />
      </label>
      <ul className="grid min-h-0 grid-cols-1 gap-2 overflow-y-auto sm:grid-cols-2" aria-label="Image credits">
        {matching.slice(0, shown).map((item) => (
          <li key={item.key} className="flex gap-2 rounded-lg bg-white p-2 text-xs ring-1 ring-slate-200">
            <img src={imageUrl(item)} alt={item.alt} loading="lazy" width={56} height={56} className="h-14 w-14 shrink-0 rounded object-contain" />
            <div className="min-w-0">
              <p className="font-medium text-slate-900">{item.label ?? item.alt}</p>
              <p className="text-slate-700">
                {item.author ? `${item.author} · ` : ''}
                <span data-testid="credit-licence">{item.licence}</span>
              </p>
              <p className="truncate text-slate-600">
                {item.sourceUrl ? (
                  <a className="underline" href={item.sourceUrl} target="_blank" rel="noreferrer">
                    {item.source}
                  </a>
                ) : (
                  item.source
                )}
              </p>
            </div>
          </li>
        ))}
      </ul>
      {shown < matching.length && (
        <button
          type="button"
          onClick={() => setShown((n) => n + PAGE)}
          className="self-center rounded-lg border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100"
        >
          Show more ({matching.length - shown} left)
        </button>
      )}
    </div>
  );
}
