export {
  CV_EXTENSIONS,
  cvContentDisposition,
  cvMetadata,
  finalCvKey,
  safeCvFilename,
  stagedCvKey,
} from './cv-objects.ts';
export {
  createObjectStorage,
  ensureBucket,
  httpStatus,
  isNotFound,
  type ObjectStorage,
  openObjectStorage,
  type StorageLogger,
} from './object-storage.ts';
export { S3_ENV_ENTRIES, type StorageSettings, storageSettings } from './storage-settings.ts';
