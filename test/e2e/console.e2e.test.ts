/**
 * The web console in a real headless browser (Debian's chromium through playwright-core) against the whole
 * platform: sign in, create a set from an uploaded CSV and watch it reach `downloaded` (thumbnails through the
 * authenticated thumbnail route, the failed record with its reason), search with a drawn `loc` and per region, detect faces
 * and see the boxes on the canvas, train a classifier and see its confusion matrix, try it on a picture, start a search
 * service's self-evaluation and read its report, switch to Chinese. Screenshots of every page go to docs/console/.
 * Also: the thumbnail and record routes refuse another account's sets, at the edge.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { faceRow } from '../../region-backend/test/support/sample-images.js';
import { photoJpeg } from '../../region-backend/test/support/test-images.js';
import { packageFile } from '../../region-backend/src/vision/runtime/tfjs.js';
import { shapeImage } from '../../region-backend/test/support/shape-images.js';
import { startImageServer, type ImageServer } from '../../region-backend/test/support/image-server.js';
import { waitUntil } from '../../region-backend/test/support/wait-for.js';
import { launchBrowser, type Browser } from './browser.js';
import { startPlatformFixture, type PlatformFixture } from './platform-fixture.js';

const SHOTS = path.resolve(import.meta.dirname, '../../docs/console');
const IN_SET = 8;
const SAMPLES = packageFile('@vladmandic/human', 'assets/samples.jpg');
/** x ranges of the photos in the top strip of the sample collage shipped in @vladmandic/human (157 px high). */
const STRIP = [[0, 157], [165, 314], [325, 538], [544, 634], [640, 787], [795, 896], [1128, 1280]] as const;

/** Ten distinct JPEG pictures: seven real photos and three generated ones. */
async function photosForTest(): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const [from, to] of STRIP) out.push(await sharp(SAMPLES).extract({ left: from, top: 0, width: to - from, height: 157 }).resize({ height: 314 }).jpeg({ quality: 92 }).toBuffer());
  for (let seed = 1; seed <= 3; seed++) out.push(await photoJpeg(480, 360, seed * 7));
  return out;
}

/** 640×480: `image` in the top-left quarter, `other` in the three other quarters. */
async function composite(image: Buffer, other: Buffer): Promise<Buffer> {
  const tile = (img: Buffer) => sharp(img).resize(320, 240, { fit: 'fill' }).toBuffer();
  const rest = await tile(other);
  return sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 30, g: 30, b: 30 } } })
    .composite([{ input: await tile(image), left: 0, top: 0 }, ...[[320, 0], [0, 240], [320, 240]].map(([left, top]) => ({ input: rest, left: left!, top: top! }))])
    .jpeg({ quality: 90 })
    .toBuffer();
}

describe('web console in a real browser', () => {
  let platform: PlatformFixture;
  let images: ImageServer;
  let photos: Buffer[];
  let browser: Browser;
  let page: Page;
  let setId = '';
  let otherKey = '';
  let otherAccount = 0;
  const pageErrors: string[] = [];

  // Polls an expression in the page (page.waitForFunction would need 'unsafe-eval', which the console's CSP forbids).
  const until = (expression: string) => waitUntil(() => page.evaluate(expression), (v) => v === true, 30_000);
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // Installs chromium first when missing (the slow part on a fresh machine), then the platform.
    browser = await launchBrowser();
    [platform, photos] = await Promise.all([startPlatformFixture(), photosForTest()]);
    images = await startImageServer();
    photos.forEach((img, n) => images.set(`/img/${n}.jpg`, img));
    const other = await platform.admin('POST', '/admin/accounts', { name: 'other' });
    otherAccount = Number(other.id);
    otherKey = String((await platform.admin('POST', `/admin/accounts/${otherAccount}/keys`, {})).key_id);
    page = await browser.context.newPage();
    // Script errors and CSP violations; refused API calls (401 on a wrong key) are expected and not counted.
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (m) => void (m.type() === 'error' && !m.text().startsWith('Failed to load resource') && pageErrors.push(m.text())));
  });
  afterAll(async () => {
    await browser?.close();
    await images?.close();
    await platform?.stop();
  });

  it('is served by the edge at /console and signs in with an access key', async () => {
    const requested: string[] = [];
    const scripts: Promise<Buffer>[] = [];
    page.on('request', (r) => requested.push(r.url()));
    page.on('response', (r) => void (r.url().endsWith('.js') && scripts.push(r.body())));
    const response = await page.goto(`${platform.edgeUrl}/console`);
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.getByLabel('Access key ID').waitFor();
    // Everything comes from the edge itself (no CDN), and the first load stays inside its JavaScript budget.
    for (const url of requested) expect(url.startsWith(`${platform.edgeUrl}/console`), url).toBe(true);
    const js = await Promise.all(scripts);
    expect(js.length).toBeGreaterThan(0);
    const gzipped = js.reduce((sum, body) => sum + gzipSync(body, { level: 9 }).length, 0);
    expect(gzipped).toBeLessThan(200 * 1024);
    page.removeAllListeners('request');
    page.removeAllListeners('response');
    await page.getByLabel('Access key ID').fill('no-such-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/access key/i);
    await shot('sign-in');
    await page.getByLabel('Access key ID').fill(platform.devAccount.key_id);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Data sets', level: 1 }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('iris.key')")).toBe(platform.devAccount.key_id);
    // The answers were checked with the contract, loaded in its own chunk on the first call.
    expect(await page.evaluate("performance.getEntriesByType('resource').some((e) => /[/]console[/]assets[/]client-[^/]+[.]js$/.test(e.name))")).toBe(true);
  });

  it('creates an image set from an uploaded CSV and shows it reach downloaded, with thumbnails and the failed record', async () => {
    await page.locator('#create-name').fill('console e2e');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.locator('#set-progress').waitFor();
    setId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
    expect(setId).toMatch(/^\w+$/);

    const rows = photos.slice(0, IN_SET).map((_, n) => `${images.url(`/img/${n}.jpg`)},photo ${n},${n % 2 ? 'odd' : 'even'}|all`);
    rows.push(`${images.url('/missing.jpg')},gone,all`);
    await page.locator('#upload-file').setInputFiles({ name: 'images.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n')) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();

    const progress = page.locator(`#set-progress[data-status="downloaded"][data-total="${IN_SET + 1}"]`);
    await progress.waitFor({ timeout: 90_000 });
    expect(await progress.getAttribute('data-downloaded')).toBe(String(IN_SET));
    expect(await progress.getAttribute('data-failed')).toBe('1');
    // Thumbnails arrive through the authenticated thumbnail route as blob: URLs.
    await page.locator('img.thumb[src^="blob:"]').nth(IN_SET - 1).waitFor({ timeout: 30_000 });
    const loaded = `Array.from(document.querySelectorAll('img.thumb[src^="blob:"]')).filter((i) => i.complete && i.naturalWidth > 0).length`;
    await until(`${loaded} === ${IN_SET}`);
    await shot('set-detail');

    await page.getByRole('tab', { name: /Failed records/ }).click();
    const failedRow = page.locator('table.failed-records tbody tr');
    await failedRow.waitFor();
    expect(await failedRow.textContent()).toContain('/missing.jpg');
    expect(await failedRow.locator('td').nth(1).textContent()).toMatch(/404/);

    // Export: every record as a JSON line, with its state and the failure's reason.
    const exported = page.waitForEvent('download');
    await page.locator('#export-records').click();
    const records = readFileSync(await (await exported).path(), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: string; last_error: string | null });
    expect(records.map((r) => r.status)).toEqual([...Array<string>(IN_SET).fill('downloaded'), 'failed']);
    expect(records[IN_SET]!.last_error).toMatch(/404/);

    // Usage beside the quotas: the stored pictures (counted within the flush interval) and the records held.
    await page.goto(`${platform.edgeUrl}/console/#/usage`);
    await page.locator('#usage-stored').waitFor();
    expect(Number(await page.locator('#usage-stored').getAttribute('data-records'))).toBeGreaterThanOrEqual(IN_SET + 1);
    // Usage is written every few seconds: the downloads' row may first show part of them.
    const storedToday = page.locator('#usage-days tr[data-service="downloads"] td[data-measure="pictures_stored"]');
    const shown = async () => {
      await page.reload();
      await storedToday.waitFor({ timeout: 60_000 });
      return storedToday.textContent();
    };
    expect(await waitUntil(shown, (text) => text === String(IN_SET), 60_000)).toBe(String(IN_SET));

    await page.goto(`${platform.edgeUrl}/console/#/sets`);
    await page.locator(`tr[data-set-id="${setId}"] .set-status[data-status="downloaded"]`).waitFor();
    await shot('data-sets');
  });

  it('searches with a loc rectangle drawn on the query picture', async () => {
    const created = await platform.call(`/image_sets/_0000014/${setId}/services`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'console', scenario: 'general' }),
    });
    const service = (await created.json()) as { id: string };
    const serviceId = String(service.id);
    await waitUntil(
      async () =>
        ((await (await platform.call('/customer_services/_0000172')).json()) as { results: { id: string; n_indexed: number; n_first_pass_only: number }[] }).results.find(
          (s) => s.id === serviceId,
        ),
      // Re-ranking verifies (and draws) a match only once its keypoints are described: the second pass.
      (s) => s?.n_indexed === IN_SET && s.n_first_pass_only === 0,
      120_000,
    );
    await page.goto(`${platform.edgeUrl}/console/#/services`);
    await page.locator(`tr[data-service-id="${serviceId}"]`, { hasText: '100%' }).waitFor();
    await shot('services');

    // The query holds photo 2 in its top-left quarter and a photo outside the set everywhere else.
    const query = await composite(photos[2]!, photos[IN_SET + 1]!);
    await page.goto(`${platform.edgeUrl}/console/#/search`);
    await page.locator('#search-service').selectOption(serviceId);
    await page.locator('#search-file').setInputFiles({ name: 'query.jpg', mimeType: 'image/jpeg', buffer: query });
    const canvas = page.locator('canvas.picture');
    await canvas.waitFor();
    await until("document.querySelector('canvas.picture')?.width === 640");
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.01, box.y + box.height * 0.01);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3, { steps: 5 });
    await page.mouse.move(box.x + box.width * 0.49, box.y + box.height * 0.49, { steps: 5 });
    await page.mouse.up();
    const loc = (await canvas.getAttribute('data-loc'))!.split('-').map(Number);
    expect(loc[0]).toBeCloseTo(0.01, 1);
    expect(loc[2]).toBeCloseTo(0.48, 1);
    expect(loc[3]).toBeCloseTo(0.48, 1);

    const answered = page.waitForResponse((r) => r.url().endsWith(`/search/${serviceId}`) && r.request().method() === 'POST');
    await page.locator('#search-run').click();
    const answer = (await (await answered).json()) as { loc: number[]; results: unknown[] };
    // The backend says which region of the query it used: the one drawn.
    answer.loc.forEach((v, i) => expect(v).toBeCloseTo(loc[i]!, 2));
    const first = page.locator('#search-results li').first();
    await first.waitFor({ timeout: 60_000 });
    expect(await first.locator('img').getAttribute('src')).toBe(images.url('/img/2.jpg'));
    expect(await first.textContent()).toContain('photo 2');
    // The match is verified by keypoints: its region is drawn on the result and on the query picture.
    expect(answer.results[0]).toHaveProperty('matched_region');
    expect(await first.locator('.match-box').count()).toBe(1);
    expect(await page.locator('canvas.picture').first().getAttribute('data-box-count')).toBe('1');
    await shot('search');

    // One group per region of the query (regions=all): each region's box on the picture, its results beside it.
    await page.locator('button', { hasText: /^Whole picture$/ }).click();
    await page.locator('#search-regions').selectOption('all');
    const grouped = page.waitForResponse((r) => r.url().endsWith(`/search/${serviceId}`) && r.request().method() === 'POST');
    await page.locator('#search-run').click();
    const groups = ((await (await grouped).json()) as { regions: { box: number[]; results: { url: string }[] }[] }).regions;
    expect(groups.length).toBeGreaterThan(0);
    await page.locator('#search-region-groups li.region-group').nth(groups.length - 1).waitFor();
    expect(await page.locator('#search-region-groups li.region-group').count()).toBe(groups.length);
    expect(await page.locator('canvas.picture').first().getAttribute('data-box-count')).toBe(String(groups.length));
    // The top-left window holds photo 2.
    const topLeft = groups.findIndex((g) => g.box[0] === 0 && g.box[1] === 0 && g.box[2] === 0.5);
    expect(groups[topLeft]!.results[0]!.url).toBe(images.url('/img/2.jpg'));
    await shot('search-regions');
  });

  it('starts a self-evaluation of the search service on the services page and shows its report', async () => {
    const list = (await (await platform.call('/customer_services/_0000172')).json()) as { results: { id: string; name: string }[] };
    const serviceId = list.results.find((s) => s.name === 'console')!.id;
    await page.goto(`${platform.edgeUrl}/console/#/services`);
    await page.locator(`tr[data-service-id="${serviceId}"]`).getByRole('button', { name: 'Evaluate' }).click();
    await page.locator('#evaluation-sample').fill('3');
    await page.getByRole('button', { name: 'Start evaluation' }).click();
    // Progress while it runs in the background, then the report table: one row per standard edit and overall.
    await page.locator('.evaluation[data-state="done"] table.evaluation-report').waitFor({ timeout: 300_000 });
    const rows = page.locator('table.evaluation-report tbody tr');
    expect(await rows.count()).toBe(8);
    expect(await rows.first().locator('td').first().textContent()).toBe('crop50');
    expect(await rows.first().locator('td').nth(1).textContent()).toBe('3');
    const overall = await page.locator('table.evaluation-report tr.overall').textContent();
    expect(overall).toMatch(/Overall21\d+\.\d %100\.0 %/);
    expect(await page.locator('table.evaluation-report caption').textContent()).toMatch(/p50 \d+(\.\d)? ms/);
    await shot('service-evaluation');
  }, 360_000);

  it('runs face detection and draws the boxes on the canvas', async () => {
    const faces = await faceRow();
    const jpeg = await sharp(faces.data, { raw: { width: faces.width, height: faces.height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
    await page.goto(`${platform.edgeUrl}/console/#/analysis`);
    await page.locator('#analysis-service').selectOption('_0000049');
    await page.locator('#analysis-file').setInputFiles({ name: 'faces.jpg', mimeType: 'image/jpeg', buffer: jpeg });
    await page.locator('#analysis-run').click();
    const canvas = page.locator('canvas.picture:not([data-box-count="0"])');
    await canvas.waitFor({ timeout: 90_000 });
    const drawn = Number(await canvas.getAttribute('data-box-count'));
    const answer = JSON.parse((await page.locator('pre.json').textContent())!) as { boxes_detected: { box: number[] }[] };
    expect(drawn).toBe(answer.boxes_detected.length);
    expect(drawn).toBeGreaterThanOrEqual(3);
    // The middle of the first box's left edge is drawn on the canvas, in the first palette colour (#00e0a0).
    const [x, y, , h] = answer.boxes_detected[0]!.box as [number, number, number, number];
    const pixel = (await page.evaluate(`(() => {
      const c = document.querySelector('canvas.picture');
      const px = Math.round(${x} * c.width);
      const py = Math.round(${y + h / 2} * c.height);
      return Array.from(c.getContext('2d').getImageData(px, py, 1, 1).data);
    })()`)) as number[];
    expect(pixel.slice(0, 3)).toEqual([0, 224, 160]);
    await shot('analysis');
  });

  it('trains a classifier from the Training page, shows its confusion matrix and tries it on a picture', async () => {
    // Three labels × 50 generated pictures (the specification's minimum), 10 of each held out for validation;
    // a fifth of the pictures labelled square are discs, so the matrix has mistakes to show.
    const families = ['disc', 'square', 'stripes'] as const;
    const rows: string[] = [];
    for (const label of families)
      for (let i = 0; i < 50; i++) {
        const family = label === 'square' && i % 5 === 0 ? 'disc' : label;
        const picture = `/shapes/${label}/${i}.jpg`;
        images.set(picture, await shapeImage(family, label === family ? i : 100 + i));
        rows.push(`${images.url(picture)},${label}`);
      }
    const created = await platform.call('/custom_training/_0000194/training_sets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'shapes', description: 'discs and stripes' }),
    });
    const trainingSet = ((await created.json()) as { id: string }).id;
    const labelled = new FormData();
    labelled.append('urls_to_add', new Blob([rows.join('\n')], { type: 'text/csv' }), 'labels.csv');
    expect((await platform.call(`/custom_training/_0000194/training_sets/${trainingSet}/images`, { method: 'POST', body: labelled })).status).toBe(200);

    await page.goto(`${platform.edgeUrl}/console/#/training`);
    const form = page.getByRole('region', { name: 'Train a classifier' });
    await form.getByLabel('Training set').selectOption(trainingSet);
    await form.getByLabel('Name').fill('shapes e2e');
    await form.getByRole('button', { name: 'Create' }).click();
    const card = page.locator('article[data-service-id]', { hasText: 'shapes e2e' });
    await card.waitFor();
    const serviceId = (await card.getAttribute('data-service-id'))!;
    // The page follows the run (it polls while the service is pending or preparing) until it is running.
    await page.locator(`article[data-service-id="${serviceId}"][data-status="running"]`).waitFor({ timeout: 240_000 });
    const matrix = card.locator('table.confusion-matrix');
    await matrix.waitFor();

    // The table is the API's matrix: a row per true label, a column per predicted label, recall per row.
    const api = (await (await platform.call(`/custom_training/_0000194/services/${serviceId}`)).json()) as {
      validation_accuracy: number;
      confusion_matrix: { labels: string[]; counts: number[][] };
    };
    expect(api.confusion_matrix.labels).toEqual([...families]);
    const total = api.confusion_matrix.counts.flat().reduce((a, b) => a + b, 0);
    expect(total).toBe(30);
    const correct = api.confusion_matrix.counts.reduce((sum, row, i) => sum + row[i]!, 0);
    expect(api.validation_accuracy).toBeCloseTo(correct / total, 4);
    expect(await matrix.getAttribute('data-total')).toBe('30');
    expect(await matrix.getAttribute('data-correct')).toBe(String(correct));
    expect(await matrix.locator('thead th[scope="col"]').allTextContents()).toEqual(['True ↓ / predicted →', 'disc', 'square', 'stripes', 'Recall']);
    expect(await matrix.locator('tbody th[scope="row"]').allTextContents()).toEqual(['disc', 'square', 'stripes']);
    const cells: number[][] = [];
    for (const tr of await matrix.locator('tbody tr').all()) cells.push((await tr.locator('td.cell').allTextContents()).map(Number));
    expect(cells).toEqual(api.confusion_matrix.counts);
    const recall = api.confusion_matrix.counts.map((row, i) => `${((100 * row[i]!) / row.reduce((a, b) => a + b, 0)).toFixed(1)}%`);
    expect(await matrix.locator('td.recall').allTextContents()).toEqual(recall);
    expect(await card.locator('.accuracy').textContent()).toBe(`${(api.validation_accuracy * 100).toFixed(1)}%`);
    // The field is described in the edge's OpenAPI document.
    type Document = { paths: Record<string, { get: { responses: { 200: { content: { 'application/json': { schema: { properties: object } } } } } } }> };
    const openapi = (await (await fetch(`${platform.edgeUrl}/openapi.json`)).json()) as Document;
    expect(openapi.paths['/custom_training/_0000194/services/{service_id}']!.get.responses[200].content['application/json'].schema.properties).toHaveProperty('confusion_matrix');
    // The matrix region is reachable from the keyboard (it scrolls when labels are many).
    await card.locator('.confusion').focus();
    expect(await page.evaluate("document.activeElement?.getAttribute('role')")).toBe('region');

    // Try the classifier on a picture it has not seen.
    await card.getByRole('button', { name: 'Try the classifier' }).click();
    await page.locator(`#try-${serviceId}-file`).setInputFiles({ name: 'q.jpg', mimeType: 'image/jpeg', buffer: await shapeImage('stripes', 500) });
    await page.locator(`#try-${serviceId}-run`).click();
    const first = card.locator('.classifier-answer li').first();
    await first.waitFor({ timeout: 60_000 });
    expect(await first.getAttribute('data-category')).toBe('stripes');
    await shot('training-classifier');

    // The matrix in Chinese.
    await page.locator('#language').selectOption('zh');
    await card.locator('table.confusion-matrix caption', { hasText: '混淆矩阵' }).waitFor();
    expect(await matrix.locator('thead th[scope="col"]').last().textContent()).toBe('召回率');
    expect(await matrix.locator('tfoot th').textContent()).toBe('精确率');
    await shot('training-zh');
    await page.locator('#language').selectOption('en');
    // The training set is among the data sets, downloaded (and the next test opens the Training page afresh).
    await page.goto(`${platform.edgeUrl}/console/#/sets`);
    await page.locator(`tr[data-set-id="${trainingSet}"] .set-status[data-status="downloaded"]`).waitFor();
  }, 300_000);

  it('shows the other pages and switches to Chinese', async () => {
    // A training set with two labels, both far below the 50 usable images a classifier needs: highlighted.
    const created = await platform.call('/custom_training/_0000194/training_sets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'looks', description: 'people and patterns' }),
    });
    const trainingSet = ((await created.json()) as { id: string }).id;
    const rows = [0, 1, 2].map((n) => `${images.url(`/img/${n}.jpg`)},person`).concat([7, 8].map((n) => `${images.url(`/img/${n}.jpg`)},pattern`));
    const labelled = new FormData();
    labelled.append('urls_to_add', new Blob([rows.join('\n')], { type: 'text/csv' }), 'labels.csv');
    expect((await platform.call(`/custom_training/_0000194/training_sets/${trainingSet}/images`, { method: 'POST', body: labelled })).status).toBe(200);
    await page.goto(`${platform.edgeUrl}/console/#/training`);
    await page.locator('.chip-warn', { hasText: 'person: 3/3' }).waitFor({ timeout: 60_000 });
    await page.locator('.chip-warn', { hasText: 'pattern: 2/2' }).waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: 'Custom classifiers' }).waitFor();
    await shot('training');

    // Webhooks: an endpoint registered here hears of the batch task below finishing.
    images.set('/hook', 'ok', 'text/plain');
    await page.goto(`${platform.edgeUrl}/console/#/webhooks`);
    await page.getByLabel('Endpoint URL').fill(images.url('/hook'));
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('status').filter({ hasText: 'whsec_' }).waitFor();

    // A batch task from a URL file: prepared, started, followed to SUCCESS, its result file downloaded.
    await page.goto(`${platform.edgeUrl}/console/#/batch`);
    await page.getByLabel('Service').selectOption('_0000024');
    const urls = [0, 1].map((n) => images.url(`/img/${n}.jpg`)).join('\n');
    await page.getByLabel('URL file (one URL per line)').setInputFiles({ name: 'urls.txt', mimeType: 'text/plain', buffer: Buffer.from(urls) });
    await page.getByRole('button', { name: 'Prepare and start' }).click();
    const done = page.locator('tbody tr', { hasText: 'SUCCESS' });
    await done.waitFor({ timeout: 90_000 });
    expect(await done.textContent()).toContain('2/2');
    const downloading = page.waitForEvent('download');
    await done.getByRole('button', { name: /Download results/ }).first().click();
    const file = await (await downloading).path();
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; result?: { is_err: number } });
    expect(lines.map((l) => [l.line, l.result?.is_err])).toEqual([
      [0, 0],
      [1, 0],
    ]);
    await shot('batch');
    await waitUntil(async () => images.hits('/hook'), (n) => n > 0, 60_000);
    await page.goto(`${platform.edgeUrl}/console/#/webhooks`);
    const hook = page.locator('tbody tr', { hasText: images.url('/hook') });
    await hook.filter({ hasText: 'delivered (HTTP 200)' }).waitFor({ timeout: 60_000 });
    await shot('webhooks');
    page.once('dialog', (dialog) => void dialog.accept());
    await hook.getByRole('button', { name: /Delete/ }).click();
    await hook.waitFor({ state: 'detached' });
    await page.goto(`${platform.edgeUrl}/console/#/sets`);
    await page.locator('#language').selectOption('zh');
    await page.getByRole('heading', { name: '数据集', level: 1 }).waitFor();
    expect(await page.evaluate('document.documentElement.lang')).toBe('zh-CN');
    expect(await page.getByRole('navigation', { name: '主导航' }).textContent()).toContain('搜索试用');
    await page.locator(`tr[data-set-id="${setId}"]`).waitFor();
    await shot('data-sets-zh');
    await page.locator('#language').selectOption('en');

    await page.goto(`${platform.edgeUrl}/console/#/operator`);
    await page.getByLabel('Admin token').fill(platform.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: /#\d+ other/ }).click();
    // Operator mode works through the admin API: revoking a grant in the page revokes it for the account.
    const faces = page.getByRole('checkbox', { name: /face detection v1\.0/ });
    await faces.waitFor();
    expect(await faces.isChecked()).toBe(true);
    await faces.click();
    await until(`document.querySelectorAll('.grants input:not(:checked)').length === 1`);
    const grants = (await platform.admin('GET', `/admin/accounts/${otherAccount}/grants`)) as { results: { service_id: string; granted: boolean }[] };
    expect(grants.results.filter((g) => !g.granted).map((g) => g.service_id)).toEqual(['_0000049']);
    await page.getByLabel('Batch tasks per day').waitFor();
    await shot('operator');
    expect(pageErrors).toEqual([]);
  });

  it('refuses another account’s records and thumbnails at the edge; caches thumbnails by ETag', async () => {
    const list = await platform.call(`/iris/image_sets/${setId}/records?count=2&status=downloaded`);
    expect(list.status).toBe(200);
    const page0 = (await list.json()) as { total: number; results: { id: string }[] };
    expect(page0.total).toBe(IN_SET);
    const thumbPath = `/iris/image_sets/${setId}/records/${page0.results[0]!.id}/thumbnail?size=128`;

    const own = await platform.call(thumbPath);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(Buffer.from(await own.arrayBuffer())).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(128);
    const etag = own.headers.get('etag')!;
    expect((await platform.call(thumbPath, { headers: { 'if-none-match': etag } })).status).toBe(304);

    for (const p of [thumbPath, `/iris/image_sets/${setId}/records`]) {
      const refused = await platform.call(p, { keyId: otherKey });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error_code: 1002 });
    }
    const noKey = await fetch(`${platform.edgeUrl}${thumbPath}`);
    expect(noKey.status).toBe(401);
    const badSize = await platform.call(`/iris/image_sets/${setId}/records/${page0.results[0]!.id}/thumbnail?size=4000`);
    expect(badSize.status).toBe(400);
    expect(await badSize.json()).toMatchObject({ error_code: 5001 });
  });
});
