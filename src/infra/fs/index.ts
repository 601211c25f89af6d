/** File-backed ports and crash-safe file writes. */
export { fsyncDirectory, writeFileAtomic, type AtomicWriteOptions } from './atomicFile';
export { FileArchiveSink, archiveDirName } from './archiveSegments';
export { FileBlobStore } from './blobStore';
export { JsonlExportSink, exportFileNames } from './jsonlExport';
