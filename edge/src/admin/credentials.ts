/** Generated access key ids and secrets (CSPRNG). */
import { newResourceId } from '@iris/shared';

export function generateKeyId(): string {
  return `ak${newResourceId(22)}`;
}

export function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(30));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_');
}
