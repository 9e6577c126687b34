/**
 * `iris`: dispatches a command line to its group (login, data commands, `api`, operator commands), prints the
 * answer (text, or JSON with --json) and maps every failure to its exit code: 0 done, 1 refused by the
 * platform, 2 usage error, 3 platform unreachable or nothing to call with, 4 an answer off the contract.
 */
import { ADMIN_GROUPS, runAdminCli } from './admin-commands.js';
import { parseDataArgs } from './args.js';
import { ApiCallError, ContractViolation, createClient } from './client.js';
import { DATA_GROUPS, runDataCommand } from './data-commands.js';
import { SetupError, UsageError } from './errors.js';
import { groupHelp, overview } from './help.js';
import { runLogin, runLogout } from './login-command.js';
import { resolveProfile } from './profile.js';
import { cliVersion } from './version.js';

const isOneOf = (list: readonly string[], value: string | undefined): value is string => value !== undefined && list.includes(value);

async function runData(argv: readonly string[]): Promise<number> {
  const { positionals, options } = parseDataArgs(argv);
  const client = createClient(resolveProfile(options));
  try {
    const outcome = await runDataCommand(client, positionals, options);
    console.log(options.json ? JSON.stringify(outcome.value ?? null, null, 2) : outcome.text);
    return outcome.code ?? 0;
  } catch (err) {
    if (err instanceof ApiCallError && options.json) {
      console.error(JSON.stringify({ status: err.status, error: err.body }, null, 2));
      return 1;
    }
    if (err instanceof TypeError && err.message === 'fetch failed') {
      throw new SetupError(`cannot reach ${client.config.urlRoot}: ${(err.cause as Error | undefined)?.message ?? err.message}`);
    }
    throw err;
  }
}

async function dispatch(argv: readonly string[]): Promise<number> {
  const [first] = argv;
  if (first === '--version' || first === '-v' || first === 'version') {
    console.log(cliVersion());
    return 0;
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const group = first === 'help' ? argv[1] : undefined;
    const text = group ? groupHelp(group) : overview(cliVersion());
    if (!text) throw new UsageError(`no command ${group}`);
    console.log(text);
    return first === undefined ? 2 : 0;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    const text = groupHelp(first);
    if (!text) throw new UsageError(`unknown command: ${first}`);
    console.log(text);
    return 0;
  }
  if (first === 'login') {
    console.log(await runLogin(argv.slice(1)));
    return 0;
  }
  if (first === 'logout') {
    console.log(runLogout());
    return 0;
  }
  if (isOneOf(ADMIN_GROUPS, first)) return runAdminCli([...argv]);
  if (isOneOf(DATA_GROUPS, first)) return runData(argv);
  throw new UsageError(`unknown command: ${first}`);
}

export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      const help = err.group ? groupHelp(err.group) : undefined;
      console.error(`iris: ${err.message}\n\n${help ?? 'iris --help lists the commands'}`);
      return 2;
    }
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      console.error(`iris: ${(err as Error).message}`);
      return 2;
    }
    if (err instanceof ContractViolation) {
      console.error(`iris: the answer does not match the API contract (a platform defect): ${err.message}`);
      return 4;
    }
    if (err instanceof ApiCallError) {
      console.error(`iris: ${err.message}`);
      return 1;
    }
    if (err instanceof SetupError) {
      console.error(`iris: ${err.message}`);
      return 3;
    }
    if (err instanceof TypeError && err.message === 'fetch failed') {
      console.error(`iris: cannot reach the platform: ${(err.cause as Error | undefined)?.message ?? err.message}`);
      return 3;
    }
    console.error(err);
    return 1;
  }
}
