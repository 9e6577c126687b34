/**
 * Soak (`npm run soak`, or `npm run bench -- soak`): the whole platform under mixed traffic from three
 * accounts for IRIS_SOAK_MINUTES (default 30), sampled every IRIS_SOAK_SAMPLE_SECONDS (default 30): memory and
 * descriptors of every process, temp folders, PostgreSQL connections and tables (test/soak/). Passes when
 * every series is flat after warm-up (the first third of the run), no answer was a 5xx other than a documented
 * refusal, and an ordinary call's p99 under the soak stayed within 2× its p99 when idle; fails (non-zero exit)
 * otherwise, after printing the tables.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { ROOT } from '../../scripts/platform.js';
import { ordinaryCall } from '../soak/soak-probe.js';
import { report, type Latency, type TimedSample } from '../soak/soak-report.js';
import { takeSample } from '../soak/soak-sampler.js';
import { startSoakPlatform } from '../soak/soak-platform.js';
import { cpuRows, cpuSnapshot } from '../soak/soak-cpu.js';
import { printTable } from '../../scripts/table.js';
import { runTraffic, type Outcome, type TrafficOptions } from '../soak/soak-traffic.js';

const setting = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number`);
  return value;
};

const MINUTES = setting('IRIS_SOAK_MINUTES', 30);
const SAMPLE_SECONDS = setting('IRIS_SOAK_SAMPLE_SECONDS', 30);
const TRAFFIC: TrafficOptions = {
  callsPerSecond: setting('IRIS_SOAK_RATE', 3),
  inFlightPerAccount: setting('IRIS_SOAK_IN_FLIGHT', 2),
  bigUploadBytes: setting('IRIS_SOAK_BIG_UPLOAD_MB', 8) * 1024 * 1024,
};
/** Idle calls: the idle p99 is the 3rd slowest of 300, not the slowest of 100, so the baseline holds from run to run. */
const IDLE_CALLS = 300;
/** Calls before the idle series: the first calls of each model thread after start are not the ordinary call. */
const WARM_UP_CALLS = 20;
/** Nice levels the soak's own traffic thread is lowered by once the platform and the probe have started. */
const TRAFFIC_NICE = 10;
const PROBE_PAUSE_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.error(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${head} (with local changes)` : head;
  } catch {
    return 'unknown';
  }
}

export default async function run(): Promise<void> {
  const settings = `IRIS_SOAK_MINUTES=${MINUTES} IRIS_SOAK_SAMPLE_SECONDS=${SAMPLE_SECONDS} IRIS_SOAK_RATE=${TRAFFIC.callsPerSecond} IRIS_SOAK_IN_FLIGHT=${TRAFFIC.inFlightPerAccount}`;
  console.log(`\`${settings} npm run soak\` — ${new Date().toISOString()}, commit ${commit()}, Node ${process.version}, ${os.availableParallelism()} cores, ${Math.round(os.totalmem() / 1024 ** 3)} GB\n`);
  log('starting the platform');
  const soak = await startSoakPlatform(log);
  try {
    const prober = ordinaryCall(soak);
    const probe = prober.probe;
    const outcomes: Outcome[] = [];
    for (let i = 0; i < WARM_UP_CALLS; i++) await probe();
    const latency: Latency = { idle: [], soak: [] };
    for (let i = 0; i < IDLE_CALLS; i++) {
      const o = await probe();
      outcomes.push(o);
      latency.idle.push(o.result);
    }
    log(`idle: ${IDLE_CALLS} ordinary calls; traffic for ${MINUTES} min at ${TRAFFIC.callsPerSecond} calls/s`);

    // The traffic stands for clients on other machines: on the platform's own cores its client work (building
    // and signing 8 and 51 MB bodies, the image server) yields to the platform and to the probe's thread, which
    // was started before this and keeps the process's priority. A lower priority is always allowed.
    try {
      os.setPriority(0, Math.min(19, os.getPriority(0) + TRAFFIC_NICE));
    } catch {
      // No per-thread priority here: the traffic runs at the platform's priority.
    }
    const cpuBefore = cpuSnapshot(soak);
    const durationMs = MINUTES * 60_000;
    const started = performance.now();
    let stopTraffic!: () => void;
    const stop = new Promise<void>((r) => (stopTraffic = r));
    const traffic = runTraffic(soak, TRAFFIC, stop, (o) => outcomes.push(o));
    const warmUpSeconds = (MINUTES * 60) / 3;
    let probing = true;
    const probeLoop = (async () => {
      while (probing) {
        const o = await probe();
        outcomes.push(o);
        if (performance.now() - started >= warmUpSeconds * 1000) latency.soak.push(o.result);
        await sleep(PROBE_PAUSE_MS);
      }
    })();

    const samples: TimedSample[] = [];
    for (let k = 0; ; k++) {
      const at = k * SAMPLE_SECONDS * 1000;
      if (at > durationMs) break;
      await sleep(Math.max(0, at - (performance.now() - started)));
      samples.push({ t: (performance.now() - started) / 1000, values: await takeSample(soak) });
      const last = samples.at(-1)!.values;
      log(`${Math.round(at / 1000)} s: ${outcomes.length} answers, RSS backend cn-east ${Math.round(last.get('RSS MB · backend cn-east') ?? 0)} MB, temp cn-east ${(last.get('temp MB · cn-east') ?? 0).toFixed(1)} MB`);
    }
    stopTraffic();
    probing = false;
    const { skippedTicks } = await traffic;
    await probeLoop;
    await prober.close();

    const trafficSeconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSnapshot(soak);
    const calls = outcomes.length;
    console.log(`${calls} answers in ${MINUTES} min from ${soak.accounts.length} accounts (${TRAFFIC.callsPerSecond} actions/s, at most ${TRAFFIC.inFlightPerAccount} in flight per account; ${skippedTicks} ticks skipped with all in flight), ${samples.length} samples every ${SAMPLE_SECONDS} s.\n`);
    console.log(`CPU while the traffic ran (${Math.round(trafficSeconds)} s, ${os.availableParallelism()} cores; the traffic's thread at nice +${TRAFFIC_NICE}):\n`);
    printTable(['part', 'CPU s', 'share of the cores'], cpuRows(cpuBefore, cpuAfter, trafficSeconds, os.availableParallelism()));
    console.log('');
    const verdict = report(samples, warmUpSeconds, outcomes, latency);
    console.log(verdict.pass ? 'PASS\n' : `FAIL:\n${verdict.reasons.map((r) => `- ${r}`).join('\n')}\n`);
    if (!verdict.pass) throw new Error(`soak failed: ${verdict.reasons.length} reasons (above)`);
  } finally {
    log('stopping the platform');
    await soak.stop();
  }
}
