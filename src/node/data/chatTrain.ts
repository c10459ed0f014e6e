import { spawnSync } from 'node:child_process';
import { parseCommandLine, runCommand } from '../tools/cliArgs';

/**
 * npm run chat:train -- [--pack mini-clip] [--epochs 12]
 * The conversational encoder's whole recipe, one step after another, each step's time and the total
 * printed: the training pairs (chat:data), the encoder (Debian's PyTorch), the demo pool's keys and
 * stored contexts (chat:keys), and what is learned on the valid parts (chat:fuse). Needs the pool's
 * texts (pool:human) and their CLIP embeddings (pool:build) for the last two steps.
 */
const USAGE = 'npm run chat:train -- [--pack mini-clip] [--epochs 12]';
const PYTHON = '/usr/bin/python3';

function step(title: string, command: string, args: string[]): number {
  console.log(`\n=== ${title}: ${command} ${args.join(' ')}`);
  const started = performance.now();
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${title} failed (exit ${result.status ?? result.signal}); the steps after it were not run.`);
  return (performance.now() - started) / 1000;
}

function main(): void {
  const values = parseCommandLine(process.argv.slice(2), { pack: { type: 'string', default: 'mini-clip' }, epochs: { type: 'string', default: '12' } }, USAGE);
  const torch = spawnSync(PYTHON, ['-c', 'import torch, onnx'], { encoding: 'utf8' });
  if (torch.status !== 0)
    throw new Error(
      `${PYTHON} cannot import torch and onnx. Install Debian's packages: apt-get install python3-torch python3-onnx libopenblas0-pthread (OpenBLAS: the generic BLAS makes training 30x slower).`,
    );
  const tsx = 'node_modules/.bin/tsx';
  const times = [
    ['training pairs (chat:data)', step('training pairs', tsx, ['src/node/data/chatData.ts'])],
    ['encoder', step('encoder', PYTHON, ['models/scripts/chat/train_chat_encoder.py', '--out', `models/${values.pack}/chat`, '--epochs', values.epochs])],
    ['pool keys and stored contexts (chat:keys)', step('pool keys and stored contexts', tsx, ['src/node/data/chatKeys.ts', '--pack', values.pack])],
    ['context match and hybrid weights on valid (chat:fuse)', step('fusion on valid', tsx, ['src/node/data/chatFuse.ts', '--pack', values.pack])],
  ] as const;
  console.log('');
  for (const [title, s] of times) console.log(`${title.padEnd(56)} ${(s / 60).toFixed(1).padStart(5)} min`);
  console.log(`${'total'.padEnd(56)} ${(times.reduce((n, [, s]) => n + s, 0) / 60).toFixed(1).padStart(5)} min`);
}

await runCommand('chat:train', main);
