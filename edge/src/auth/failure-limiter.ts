/**
 * Failed authentications counted in the isolate, per client address and in total, in fixed windows
 * (docs/edge.md, "Failed authentications"). A flood of unknown key ids or bad signatures is refused here
 * before it costs a D1 round trip; no storage, no D1. The address table is bounded: when it is full the
 * entry whose window started first goes (Map order is insertion order and a new window re-inserts).
 */
import { ApiError } from '@iris/shared';

/** A refusal of something presented as a credential without a key (a result link): counted as a failure. */
export class CredentialRefused extends ApiError {}

export interface FailureLimits {
  perAddress: number;
  /** 0: no isolate-wide limit. */
  total: number;
  windowMs: number;
}

interface Window {
  count: number;
  startedAt: number;
}

export class FailureLimiter {
  readonly #addresses = new Map<string, Window>();
  #total: Window = { count: 0, startedAt: 0 };

  constructor(private readonly maxAddresses: number) {}

  get trackedAddresses(): number {
    return this.#addresses.size;
  }

  #current(address: string, windowMs: number, now: number): Window | undefined {
    const entry = this.#addresses.get(address);
    if (entry && now - entry.startedAt >= windowMs) {
      this.#addresses.delete(address);
      return undefined;
    }
    return entry;
  }

  /** True when this address has used up its failures for the window. */
  addressBlocked(address: string, limits: FailureLimits, now = Date.now()): boolean {
    return (this.#current(address, limits.windowMs, now)?.count ?? 0) >= limits.perAddress;
  }

  /** True when the isolate has seen its window's total of failures (calls that would need D1 wait). */
  totalExhausted(limits: FailureLimits, now = Date.now()): boolean {
    if (limits.total <= 0) return false;
    if (now - this.#total.startedAt >= limits.windowMs) return false;
    return this.#total.count >= limits.total;
  }

  record(address: string, limits: FailureLimits, now = Date.now()): void {
    if (now - this.#total.startedAt >= limits.windowMs) this.#total = { count: 0, startedAt: now };
    this.#total.count++;
    const entry = this.#current(address, limits.windowMs, now);
    if (entry) {
      entry.count++;
      return;
    }
    this.#addresses.set(address, { count: 1, startedAt: now });
    while (this.#addresses.size > this.maxAddresses) {
      const oldest = this.#addresses.keys().next().value;
      if (oldest === undefined) break;
      this.#addresses.delete(oldest);
    }
  }

  clear(): void {
    this.#addresses.clear();
    this.#total = { count: 0, startedAt: 0 };
  }
}

/** The caller's address as Cloudflare reports it (`cf-connecting-ip`); one shared bucket without it. */
export function clientAddress(headers: Headers): string {
  return headers.get('cf-connecting-ip')?.trim().slice(0, 64) || 'unknown';
}

/** Public API calls and admin API calls keep separate counts. */
export const authFailures = new FailureLimiter(10_000);
export const adminFailures = new FailureLimiter(10_000);
