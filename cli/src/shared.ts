/**
 * The CLI's one door to the shared contract: the build compiles these sources into the package, so the
 * installed CLI carries the same schemas, client and signing rules as the platform it talks to.
 */
export * from '../../shared/src/index.js';
export { ApiCallError, ContractViolation, answerBody, checkAnswer, createApiClient, findOperation, type CallInput as ContractCallInput, type Fields } from '../../shared/src/contract/client.js';
