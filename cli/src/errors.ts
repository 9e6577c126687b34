/** How a command fails besides the platform's refusals (exit codes in run.ts). */

/** The command line is wrong: exit 2, with the command's help. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The help section to print with it (a command group), when known. */
    readonly group?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Nothing to call with: no key, no admin token, an unreadable config file, the platform unreachable: exit 3. */
export class SetupError extends Error {
  override readonly name = 'SetupError';
}
