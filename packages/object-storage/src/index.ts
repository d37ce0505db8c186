export { S3_ENV_ENTRIES, storageSettings, type StorageSettings } from './storage-settings.ts';
export { createObjectStorage, ensureBucket, httpStatus, isNotFound, openObjectStorage, type ObjectStorage, type StorageLogger } from './object-storage.ts';
export { CV_EXTENSIONS, cvContentDisposition, cvMetadata, finalCvKey, safeCvFilename, stagedCvKey } from './cv-objects.ts';
