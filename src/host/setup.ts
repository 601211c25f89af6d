/**
 * Making a folder a Foreman workspace (`foreman init`, the window's Initialise) and checking that
 * this machine can take part in one (`foreman doctor`). Both reach the store through its backend
 * (src/infra/workspace/storeBackends.ts), as the owner does.
 */
export { initWorkspace as init, type InitOptions, type InitReport } from '../infra/workspace/init';
export { type DoctorCheck, type DoctorOptions, runDoctor as doctor } from '../infra/workspace/doctor';
export { parseStoreArgument, passwordAdvice, readStoreConfig } from '../infra/workspace/storeConfig';
