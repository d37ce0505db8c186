export * from './akismet-call.ts';
export * from './akismet-settings.ts';
export * from './filter-flag.ts';
export * from './free-texts.ts';
export * from './score-spam.ts';
export * from './spam-features.ts';
export * from './spam-model-hash.ts';
export * from './starting-spam-model.ts';
