import type { GlobalOptions } from '../global-options.js';
import type { OptionsOf } from '../option-table.js';
import { OUT_OPTION } from './out-option.js';

export const LOCAL_EXPORT_OPTIONS = [OUT_OPTION] as const;

export type LocalExportOptions = OptionsOf<typeof LOCAL_EXPORT_OPTIONS> & GlobalOptions;
