/**
 * A script whose only pending work is one job on a fresh inference pool: it must print the answer, not exit
 * while the threads load (inference-pool.test.ts).
 */
import { InferencePool } from '../../src/inference/inference-pool.js';

const pool = new InferencePool(1);
const answer = await pool.run('ping', 42);
process.stdout.write(`${JSON.stringify(answer)}\n`);
await pool.close();
