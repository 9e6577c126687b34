/** `iris <data command>`: parses flags, resolves the profile, runs the command, prints text or JSON. */
import { parseArgs } from 'node:util';
import { ApiCallError, ContractViolation, createClient } from './client.js';
import { runDataCommand, UsageError, type CommandOptions } from './data-commands.js';
import { resolveProfile } from './profile.js';

export const DATA_USAGE = `Data commands (an access key from --key, IRIS_ACCESS_KEY_ID, a profile file, or .iris/dev-account.json)
  sets create <name> [--description <d>]        create an image set
  sets add <image_set_id> <urls.csv>            upload url,meta,tags rows; live download progress
  sets failures <set_id> [--kind product_sets|training_sets]
                                                failed downloads with the reason (last_error)
  sets ls                                       list image sets with their counts
  products create <name>                        create a product set
  products add <product_set_id> <products.jsonl>
  services create <set_id> [--name n] [--scenario general|fashion_v3|...] [--product]
  services status <service_id> [--watch]        indexing progress
  search <service_id> <image|url> [--count n] [--loc x-y-w-h] [--tags a|b] [--draw out.png]
  detect|classify|color <service_id> <image|url> [--draw out.png]
                                                (color: --granularity major|detailed|dominant --return-type basic|w3c|ncs|cncs)
  batch run <service_id> <urls.txt> [--wait] [--out results.jsonl]
  batch services                                services batch tasks can run
  train <training_set_id> [--name n] [--watch]  train a classifier; live progress
  evaluate <service_id> [--sample-size n] [--edits crop50,grey,...] [--wait] [--status]
                                                a search service measures itself: recall@1/@10 per edit, latency
Options: --json (machine-readable output), --lang zh, --url <url_root>, --key <access_key_id>, --profile <file>,
         --timeout-seconds <n> (for --watch / --wait)`;

export async function runDataCli(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      lang: { type: 'string' },
      profile: { type: 'string' },
      json: { type: 'boolean' },
      name: { type: 'string' },
      description: { type: 'string' },
      scenario: { type: 'string' },
      product: { type: 'boolean' },
      count: { type: 'string' },
      loc: { type: 'string' },
      tags: { type: 'string' },
      draw: { type: 'string' },
      granularity: { type: 'string' },
      'return-type': { type: 'string' },
      wait: { type: 'boolean' },
      watch: { type: 'boolean' },
      out: { type: 'string' },
      'timeout-seconds': { type: 'string' },
      'sample-size': { type: 'string' },
      edits: { type: 'string' },
      status: { type: 'boolean' },
      kind: { type: 'string' },
    },
  });
  const client = createClient(resolveProfile(values));
  try {
    const outcome = await runDataCommand(client, positionals, values as CommandOptions);
    console.log(values.json ? JSON.stringify(outcome.value, null, 2) : outcome.text);
    return 0;
  } catch (err) {
    if (err instanceof ContractViolation) {
      console.error(`iris: the answer does not match the API contract (a platform defect): ${err.message}`);
      return 4;
    }
    if (err instanceof ApiCallError) {
      console.error(values.json ? JSON.stringify({ status: err.status, error: err.body }, null, 2) : `iris: ${err.message}`);
      return 1;
    }
    if (err instanceof TypeError && err.message === 'fetch failed') {
      console.error(`iris: cannot reach ${client.config.urlRoot}: ${(err.cause as Error | undefined)?.message ?? err.message}`);
      return 3;
    }
    if (err instanceof UsageError) {
      console.error(`iris: ${err.message}\n\n${DATA_USAGE}`);
      return 2;
    }
    throw err;
  }
}
