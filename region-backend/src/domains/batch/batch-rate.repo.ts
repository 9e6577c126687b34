/** SQL of the measured per-service throughput behind the estimates (seconds of wall clock per image). */
import type { Queryable } from '../data-sets/set.repo.js';

/** Images the rolling average remembers: a new measurement of n images weighs n against at most this many. */
export const RATE_WINDOW_IMAGES = 500;

export async function readRates(db: Queryable): Promise<Map<string, number>> {
  const result = await db.query<{ service_id: string; seconds_per_image: number }>('SELECT service_id, seconds_per_image FROM batch_service_rates');
  return new Map(result.rows.map((r) => [r.service_id, r.seconds_per_image]));
}

/** Folds a measurement (n images in `seconds`) into the service's rolling average. */
export async function recordRate(db: Queryable, serviceId: string, images: number, seconds: number): Promise<void> {
  if (images <= 0 || !(seconds > 0)) return;
  await db.query(
    `INSERT INTO batch_service_rates AS r (service_id, seconds_per_image, samples) VALUES ($1, $2::float8 / $3::int, $3::int)
     ON CONFLICT (service_id) DO UPDATE SET
       seconds_per_image = (r.seconds_per_image * least(r.samples, $4::int) + $2::float8) / (least(r.samples, $4::int) + $3::int),
       samples = r.samples + $3::int,
       updated_at = now()`,
    [serviceId, seconds, images, RATE_WINDOW_IMAGES],
  );
}
