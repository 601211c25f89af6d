/** The owner's local endpoint: a token-guarded Unix socket speaking newline-delimited JSON. */
export { EndpointServer, type EndpointServerOptions, type Executor } from './server';
export { answerFor, answerTo, sendRequest, sendToEndpoint, type EndpointAddress, type SendOptions, type SendOutcome } from './client';
export { readAnnouncement, type Announcement } from './announcement';
export { socketPathInside } from './socketLocation';
export type { ConnectionLimits } from './connection';
export {
  endpointFileName,
  maxLineBytes,
  tokenFileName,
  type EndpointInfo,
  type EndpointResponse,
  type EndpointAnswer,
  type EndpointResult,
  type UnexpectedFailure,
} from './protocol';
