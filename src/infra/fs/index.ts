/** File-backed ports and crash-safe file writes. */
export { fsyncDirectory, writeFileAtomic, type AtomicWriteOptions } from './atomicFile';
export { FileBlobStore } from './blobStore';
export { JsonlExportSink, exportFileNames } from './jsonlExport';
