/**
 * Webhooks (docs/webhooks.md): `POST` / `GET /iris/webhooks`, `DELETE /iris/webhooks/{id}`, and the dispatcher
 * that sends the outbox's deliveries from every process.
 */
import fp from 'fastify-plugin';
import { ApiError, newResourceId, operationById } from '@iris/shared';
import { serve } from '../../http/serve.js';
import type { Domain } from '../domain.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { deleteEndpoint, insertEndpoint, listEndpoints } from './webhook-endpoint.repo.js';
import { parseRegistration } from './webhook-params.js';
import { newWebhookSecret } from './webhook-signature.js';
import { checkEndpointAddresses, parseEndpointUrl } from './webhook-url.js';
import { endpointObject } from './webhook-view.js';

const routes = fp(
  async (app) => {
    const config = app.config.webhooks;
    const resolve = app.config.images.fetch.resolve;

    app.post('/iris/webhooks', serve(operationById('registerWebhook'), async ({ input, ctx }) => {
      const registration = parseRegistration(input);
      const url = parseEndpointUrl(registration.url, config.allowLoopback);
      await checkEndpointAddresses(url, resolve, config.allowLoopback);
      const secret = newWebhookSecret();
      const row = await insertEndpoint(
        app.db.pool,
        { id: newResourceId(), accountId: ctx.accountId, url: url.href, events: registration.events, description: registration.description, secret },
        config.endpointsPerAccount,
      );
      if (!row) throw new ApiError('webhookQuota', `at most ${config.endpointsPerAccount} webhook endpoints per account in a region`);
      return { ...endpointObject({ ...row, pending_deliveries: 0, last_delivery: null }), secret, request_id: ctx.requestId };
    }));

    app.get('/iris/webhooks', serve(operationById('listWebhooks'), async ({ ctx }) => ({
      request_id: ctx.requestId,
      results: (await listEndpoints(app.db.pool, ctx.accountId)).map(endpointObject),
    })));

    app.delete('/iris/webhooks/:webhook_id', serve(operationById('deleteWebhook'), async ({ params, ctx, reply }) => {
      if (!(await deleteEndpoint(app.db.pool, ctx.accountId, params.webhook_id))) throw new ApiError('webhookNotFound', 'webhook endpoint does not exist');
      return reply.code(204).send();
    }));

    const dispatcher = new WebhookDispatcher({ pool: app.db.pool, config, resolve, log: app.log.child({ domain: 'webhooks' }) });
    app.addHook('onReady', async () => dispatcher.start());
    app.addHook('preClose', async () => dispatcher.stop());
  },
  { name: 'webhooks', dependencies: ['database'] },
);

export const webhooksDomain: Domain = { name: 'webhooks', routes };
