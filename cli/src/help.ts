/** The help texts: one per command group (`iris <group> --help`, `iris help <group>`) and the overview. */

export interface GroupHelp {
  summary: string;
  text: string;
}

const DATA_OPTIONS = `Options of every data command: --json (machine-readable output), --lang zh, --url <url_root>,
  --key <access_key_id>, --profile <file>, --timeout-seconds <n> (for --watch / --wait)`;

export const GROUP_HELP: Record<string, GroupHelp> = {
  login: {
    summary: 'store the endpoint, access key and secret for the next commands',
    text: `iris login --url <url_root> --key <access_key_id> [--secret-stdin] [--lang en|zh] [--no-verify]
  Writes the config file (mode 600): IRIS_CONFIG, else $XDG_CONFIG_HOME/iris/config.json, else
  ~/.config/iris/config.json. With --secret-stdin the secret key is read from the first line of standard
  input (or IRIS_SECRET_KEY) and every request is then signed with it. The key is checked with one call
  (list image sets) unless --no-verify.
iris logout                                   remove the config file`,
  },
  sets: {
    summary: 'image sets: create, list, add pictures from files or URLs, failures, delete',
    text: `iris sets create <name> [--description <d>]     create an image set
iris sets ls                                    list image sets with their counts
iris sets show <image_set_id>                   one image set
iris sets upload <image_set_id> <dir> [--concurrency 4] [--meta m] [--tags a|b]
                                                add every picture under <dir> from its file, with a progress
                                                bar; a second run skips what the set already holds
iris sets add <image_set_id> <urls.csv>         add url,meta,tags rows; live download progress
iris sets failures <set_id> [--kind product_sets|training_sets]
                                                failed downloads with the reason (last_error)
iris sets remove-urls <image_set_id> <urls.csv> delete the records of the URLs in the file's first column
iris sets rm <image_set_id>                     delete an image set
${DATA_OPTIONS}`,
  },
  products: {
    summary: 'product sets: create, list, add products from files or JSON lines, delete',
    text: `iris products create <name> [--description <d>]
iris products ls                                list product sets
iris products upload <product_set_id> <dir> [--concurrency 4]
                                                add every picture under <dir>; its product id is its first
                                                folder (sku-1/front.jpg), else its name without extension
iris products add <product_set_id> <products.jsonl>
iris products rm <product_set_id>               delete a product set
${DATA_OPTIONS}`,
  },
  services: {
    summary: 'search services on a set: create, indexing status',
    text: `iris services create <set_id> [--name n] [--scenario general|fashion_v3|...] [--product]
iris services status <service_id> [--watch]     indexing progress
${DATA_OPTIONS}`,
  },
  search: {
    summary: 'search a service with a picture (file or URL)',
    text: `iris search <service_id> <image|url> [--count n] [--loc x-y-w-h] [--tags a|b] [--draw out.png]
${DATA_OPTIONS}`,
  },
  detect: { summary: 'detect objects in a picture', text: `iris detect <service_id> <image|url> [--draw out.png]\n${DATA_OPTIONS}` },
  classify: { summary: 'classify a picture (ready-made or custom service)', text: `iris classify <service_id> <image|url> [--count n] [--draw out.png]\n${DATA_OPTIONS}` },
  color: {
    summary: 'colours of a picture',
    text: `iris color <service_id> <image|url> [--granularity major|detailed|dominant] [--return-type basic|w3c|ncs|cncs] [--draw out.png]\n${DATA_OPTIONS}`,
  },
  batch: {
    summary: 'batch tasks: run, follow, list, cancel',
    text: `iris batch run <service_id> <urls.txt> [--wait] [--out results.jsonl]
iris batch status <task_id> [--wait] [--out results.jsonl]
iris batch ls                                   the account's tasks
iris batch cancel <task_id>                     revoke a task
iris batch services                             services batch tasks can run
${DATA_OPTIONS}`,
  },
  train: { summary: 'train a classifier on a training set', text: `iris train <training_set_id> [--name n] [--watch]   live progress\n${DATA_OPTIONS}` },
  evaluate: {
    summary: "a search service's self-evaluation",
    text: `iris evaluate <service_id> [--sample-size n] [--edits crop50,grey,...] [--wait] [--status]
                                                recall@1/@10 per edit, latency
${DATA_OPTIONS}`,
  },
  api: {
    summary: 'any operation of the API by its id',
    text: `iris api list                                   every operation id with its method and path
iris api <operation_id> [--param name=value]... [--query name=value]...
         [--body '<json>' | --form name=value... | --file field=path...]
                                                the answer is checked against the contract and printed
${DATA_OPTIONS}`,
  },
  accounts: {
    summary: 'operator: accounts',
    text: `iris accounts create <name> [--id <n>]         create an account (its id is the API's creator_id)
iris accounts list                              list accounts
iris accounts show <account_id>                 one account with its keys and quotas
iris accounts disable|enable <account_id>       refuse / allow every key of the account`,
  },
  keys: {
    summary: 'operator: access keys',
    text: `iris keys create <account_id> [--key-id <id>] [--secret <s>] [--signature-required]
                                                create a key (id and secret generated unless given;
                                                an existing key with the same secret is returned)
iris keys list <account_id>                     list the account's keys (secrets are not shown)
iris keys disable|enable <key_id>               refuse / allow one key
iris keys signature <key_id> on|off             require signed requests for the key, or not`,
  },
  quotas: {
    summary: 'operator: quotas',
    text: `iris quotas show <account_id>
iris quotas set <account_id> [--image-sets <n>] [--training-sets <n>] [--custom-services <n>]
           [--daily-batch-tasks <n>] [--product-sets <n>] [--search-services <n>]
           [--search-services-per-set <n>] [--records-per-set <n>] [--records <n>]
           [--stored-bytes <n>] [--daily-bad-cases <n>]
                                                a value of "default" restores the platform default`,
  },
  grants: { summary: 'operator: ready-made service grants', text: 'iris grants list <account_id>\niris grants add|remove <account_id> <service_id>...' },
  health: { summary: 'operator: edge health', text: 'iris health                                     edge health (D1, configured backends)' },
  regions: {
    summary: "operator: a backend's operator routes",
    text: "iris regions call <region> <METHOD> <path> [--data <json>]\n                                                call a backend's operator route /admin/<path>",
  },
};

const ADMIN_NOTE = `Operator commands use IRIS_EDGE_URL (default http://127.0.0.1:8787) and IRIS_ADMIN_TOKEN (default:
.iris/admin-token in the current folder).`;

export function groupHelp(group: string): string | undefined {
  const help = GROUP_HELP[group];
  if (!help) return undefined;
  const admin = ['accounts', 'keys', 'quotas', 'grants', 'health', 'regions'].includes(group);
  return `${help.text}${admin ? `\n\n${ADMIN_NOTE}` : ''}`;
}

export function overview(version: string): string {
  const rows = Object.entries(GROUP_HELP).map(([group, h]) => `  ${group.padEnd(10)} ${h.summary}`);
  return `iris ${version}: the Iris command line

Usage: iris <command> [arguments] [options]
       iris <command> --help       help of one command
       iris --version

Commands
${rows.join('\n')}

Settings come from flags, then IRIS_URL_ROOT, IRIS_ACCESS_KEY_ID, IRIS_SECRET_KEY, IRIS_LANG, then the file
\`iris login\` writes. Exit codes: 0 ok, 1 refused by the platform, 2 usage error, 3 platform unreachable or no
key, 4 an answer off the API contract.`;
}
