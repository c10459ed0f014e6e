/** One named figure of a definition list, with its unit and its one-line explanation as a tooltip. */
export function Figure({ name, value, unit, help, testId }: { name: string; value: string; unit?: string; help: string; testId: string }) {
  return (
    <div className="flex gap-1" title={help}>
      <dt className="text-slate-700">{name}</dt>
      <dd className="font-semibold tabular-nums" data-testid={testId}>
        {value}
      </dd>
      {unit && <dd className="text-slate-600">{unit}</dd>}
    </div>
  );
}
