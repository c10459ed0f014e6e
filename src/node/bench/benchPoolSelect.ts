import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONVERSATION_CORPORA, CONVERSATION_CORPUS_IDS } from '../../engine/conversations/corpora';
import { exampleTurns } from '../../engine/datasets/polyai';
import { formatCount } from '../../engine/datasets/validation';
import { type TargetRank, summarizeRanks } from '../../engine/metrics/dialogMetrics';
import { RESPONSE_METHOD_IDS } from '../../engine/response/methods';
import { ECHO_BAR, echoSimilarity, utteranceKind } from '../../engine/response/replyPolicy';
import type { SessionTurn } from '../../engine/response/session';
import { shuffledConversationExamples } from '../../engine/selection/protocols';
import { median } from '../../engine/stats';
import { choiceOption, integerOption, listOption, parseCommandLine } from '../tools/cliArgs';
import { loadDialogBenchData } from './benchDialog';
import { readCorpus } from '../data/conversationFiles';
import { ProgressLine } from '../tools/progressLine';

export const POOL_SELECT_USAGE =
  'npm run bench -- pool-select [--pack mini-clip] [--corpora dailydialog,topical-chat] [--contexts 1000] [--methods hybrid] [--rules both|on|off] [--json out.json]';

/**
 * npm run bench -- pool-select: test contexts of DailyDialog and Topical-Chat (splitCorpus's test parts,
 * never trained or chosen on) answered from the whole page pool exactly as the page answers them: the
 * page's ReplySession, its method and its rules (no line said twice, the echo guard...), with each true
 * response appended to the pool as a held-out row that is never offered (SessionPool.heldOutTexts). For
 * each context (the turns before a response, the latest one the visitor's) it reports
 *  - where the true response ranks among the pool's texts the page could offer (R@k, MRR, median rank);
 *  - the echo rate: the share of top replies whose echoSimilarity to the visitor's latest line, or to any
 *    earlier line of theirs, reaches ECHO_BAR (the bar chosen on valid, replyPolicy.ts);
 *  - of the contexts whose latest line asks (utteranceKind question or both), the share whose top reply
 *    tells something (a statement, or both), beside the share of the true responses that do.
 * With --rules both (the default) every method runs with the rules and without them (its ranker alone),
 * which shows what the ranking does by itself and what the guard adds.
 */
const RULES = ['both', 'on', 'off'] as const;

interface PoolSelectRow {
  corpus: string;
  method: string;
  rules: boolean;
  contexts: number;
  summary: ReturnType<typeof summarizeRanks>;
  medianRank: number;
  misses: number;
  echoLatest: number;
  echoAny: number;
  questions: number;
  questionsTold: number;
  questionsToldByPeople: number;
  examples: { visitor: string; reply: string; response: string; echo: number }[];
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;

export async function poolSelectBench(args: string[]): Promise<void> {
  const values = parseCommandLine(
    args,
    {
      pack: { type: 'string', default: 'mini-clip' },
      corpora: { type: 'string', default: CONVERSATION_CORPUS_IDS.join(',') },
      contexts: { type: 'string', default: '1000' },
      methods: { type: 'string', default: 'hybrid' },
      rules: { type: 'string', default: 'both' },
      json: { type: 'string', default: '' },
    },
    POOL_SELECT_USAGE,
  );
  const corpora = listOption(values.corpora, 'corpora', CONVERSATION_CORPUS_IDS, POOL_SELECT_USAGE);
  const perCorpus = integerOption(values.contexts, 'contexts', POOL_SELECT_USAGE, 1);
  const methods = listOption(values.methods, 'methods', RESPONSE_METHOD_IDS, POOL_SELECT_USAGE);
  const rules = choiceOption(values.rules, 'rules', RULES, POOL_SELECT_USAGE);
  const started = performance.now();

  // The test contexts, shuffled with PolyAI's fixed seed, the first N of each corpus.
  const tasks = corpora.map((corpus) => {
    const { conversations, copiesRemoved } = readCorpus(corpus);
    const test = conversations.filter((c) => c.part === 'test').map((c) => c.tidyTurns);
    const examples = shuffledConversationExamples(test).slice(0, perCorpus);
    return { corpus, copiesRemoved, testConversations: test.length, examples };
  });
  const responses = [...new Set(tasks.flatMap((t) => t.examples.map((e) => e.response)))];
  const data = await loadDialogBenchData({
    packId: values.pack,
    dataDir: join('public', 'dialogues'),
    split: 'test',
    poolDir: join('public', 'pool'),
    heldOutTexts: responses,
  });
  const poolSize = data.pool.texts.length - responses.length;
  const rowOf = new Map(responses.map((r, i) => [r, poolSize + i]));
  const session = data.newSession();
  const offered = session.methods().available;
  console.log(
    `pool-select · pack ${values.pack} · the page's pool: ${formatCount(poolSize)} texts (+ ${formatCount(responses.length)} true responses appended, never offered) · ${data.encoder.backend.provider}, 1 thread`,
  );
  for (const t of tasks)
    console.log(
      `  ${CONVERSATION_CORPORA[t.corpus].name}: test part ${formatCount(t.testConversations)} conversations (${formatCount(t.copiesRemoved)} copies removed before the split); the first ${formatCount(t.examples.length)} contexts in PolyAI's shuffled order`,
    );
  console.log(`  echo: echoSimilarity ≥ ${ECHO_BAR} (the bar chosen on valid) to the visitor's latest line, or to any line of theirs`);

  const rows: PoolSelectRow[] = [];
  for (const method of methods) {
    if (!offered.includes(method)) {
      console.log(`${method}: not offered by pack ${values.pack}`);
      continue;
    }
    for (const withRules of rules === 'both' ? [true, false] : [rules === 'on']) {
      for (const task of tasks) {
        const ranks: TargetRank[] = [];
        let echoLatest = 0,
          echoAny = 0,
          questions = 0,
          questionsTold = 0,
          questionsToldByPeople = 0,
          misses = 0;
        const examples: PoolSelectRow['examples'] = [];
        const progress = new ProgressLine();
        for (const [i, example] of task.examples.entries()) {
          const turns = exampleTurns(example);
          const history: SessionTurn[] = turns.map((text) => ({ elements: [{ kind: 'text', text }] }));
          const {
            reply,
            ranks: [rank],
          } = await session.rankTextRows(history, [rowOf.get(example.response)!], { method, rules: withRules });
          ranks.push(rank!);
          if (rank!.miss) misses++;
          const top = reply.elements.find((e) => e.kind === 'text')?.text ?? '';
          // The visitor's lines: the latest turn, and every other one back from it.
          const visitorLines = turns.filter((_, j) => (turns.length - 1 - j) % 2 === 0);
          const latest = echoSimilarity(top, turns.at(-1)!);
          const any = Math.max(...visitorLines.map((line) => echoSimilarity(top, line)));
          if (latest >= ECHO_BAR) echoLatest++;
          if (any >= ECHO_BAR) echoAny++;
          if (utteranceKind(turns.at(-1)!) !== 'statement') {
            questions++;
            if (utteranceKind(top) !== 'question') questionsTold++;
            if (utteranceKind(example.response) !== 'question') questionsToldByPeople++;
          }
          if (examples.length < 5 && any >= ECHO_BAR) examples.push({ visitor: turns.at(-1)!, reply: top, response: example.response, echo: any });
          progress.update(`${method}${withRules ? '' : ' (ranker alone)'} · ${task.corpus} ${i + 1}/${task.examples.length}`, i + 1, task.examples.length);
        }
        progress.end();
        const summary = summarizeRanks(ranks, [1, 10, 100]);
        const medianRank = median(ranks.map((r) => (r.miss ? poolSize : r.higher + 1 + r.ties / 2)));
        rows.push({
          corpus: task.corpus,
          method,
          rules: withRules,
          contexts: ranks.length,
          summary,
          medianRank,
          misses,
          echoLatest,
          echoAny,
          questions,
          questionsTold,
          questionsToldByPeople,
          examples,
        });
      }
    }
  }

  console.log(
    ['corpus', 'method', 'rules', 'R@1', 'R@10', 'R@100', 'MRR', 'median rank', 'echo (latest)', 'echo (any)', 'questions told', '(people)'].join(' | '),
  );
  for (const r of rows)
    console.log(
      [
        r.corpus,
        r.method,
        r.rules ? 'on' : 'off (ranker alone)',
        pct(r.summary.recallAt[1]! * r.contexts, r.contexts),
        pct(r.summary.recallAt[10]! * r.contexts, r.contexts),
        pct(r.summary.recallAt[100]! * r.contexts, r.contexts),
        r.summary.mrr.toFixed(4),
        formatCount(Math.round(r.medianRank)),
        pct(r.echoLatest, r.contexts),
        pct(r.echoAny, r.contexts),
        `${pct(r.questionsTold, r.questions)} of ${formatCount(r.questions)}`,
        pct(r.questionsToldByPeople, r.questions),
      ].join(' | '),
    );
  for (const r of rows) {
    if (r.misses > 0)
      console.log(
        `  ${r.corpus}, ${r.method}, rules ${r.rules ? 'on' : 'off'}: ${r.misses} true responses the rules would never let through (an echo or a line said before) count as misses`,
      );
    for (const e of r.examples.slice(0, 3))
      console.log(
        `  echo, ${r.corpus}, ${r.method}${r.rules ? '' : ' (ranker alone)'}: "${e.visitor}" → "${e.reply}" (${e.echo.toFixed(2)}; people said "${e.response}")`,
      );
  }
  console.log(
    `R@k in % of contexts, the true response among the ${formatCount(poolSize)} pool texts (ties at their expected rank); total ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ pack: values.pack, poolSize, echoBar: ECHO_BAR, rows }, null, 1)}\n`);
  await data.release();
}
