/** What the CLI and the windows reach of a workspace from outside its owner: where its folder is, who owns it, and its endpoint (light: the thin CLI bundles it). */
export { type EndpointAnswer, type EndpointResult, maxLineBytes, type UnexpectedFailure } from '../infra/endpoint/wire';
export { readOwner } from '../infra/workspace/ownerFile';
export { findWorkspaceRoot, foremanDir, foremanDirName, isInitialised } from '../infra/workspace/paths';
export { answerFor, answerTo, type EndpointAddress, type SendOutcome, sendRequest, sendToEndpoint } from '../infra/endpoint/client';
