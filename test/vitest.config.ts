import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files on the shared platform (e2e/shared-platform.ts) run last, one after the other: the platform starts
 * when the first of them asks and idles until the run ends, so started early it would take CPU from every
 * file with a platform of its own.
 */
class SharedPlatformLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const shared = new Map(files.map((file) => [file.moduleId, readFileSync(file.moduleId, 'utf8').includes('sharedPlatformFixture(') ? 1 : 0]));
    return (await super.sort(files)).sort((a, b) => shared.get(a.moduleId)! - shared.get(b.moduleId)!);
  }
}

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['e2e/**/*.test.ts', 'docs/**/*.test.ts', 'soak/**/*.test.ts'],
    // The platform the files that only call it share (e2e/shared-platform.ts), started when first asked for.
    globalSetup: ['e2e/support/platform-broker.ts'],
    sequence: { sequencer: SharedPlatformLast },
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Threads load each model on first use: warming every thread of every backend a test starts costs CI minutes.
    env: { IRIS_WARM_MODELS: '0' },
    pool: 'forks',
    // One platform (PostgreSQL + two backends + the edge) at a time on two cores.
    poolOptions: { forks: { singleFork: true } },
  },
});
