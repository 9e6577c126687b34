/** The string a signed request signs (shared with the CLI, which signs its calls with it). */
export { SIGNED_HEADERS, signedPairs, stringToSign, type SigningInput } from '@iris/shared';
