export { S3_ENV_ENTRIES, storageSettings, type StorageSettings } from './storage-settings.ts';
export { createObjectStorage, ensureBucket, httpStatus, isNotFound, type ObjectStorage } from './object-storage.ts';
export { CV_EXTENSIONS, cvContentDisposition, cvMetadata, finalCvKey, safeCvFilename, stagedCvKey } from './cv-objects.ts';
