/**
 * The shapes of the public API answers the console reads: the contract's own types (`@iris/shared`), inferred
 * from the schemas every answer is checked against. A field changed in the contract shows here at compile time.
 */
import type { z } from 'zod';
import type {
  CustomService as CustomServiceSchema,
  DataSet as DataSetSchema,
  LabelCounts,
  ProductHit,
  ProductSet,
  SearchHit as SearchHitSchema,
  SearchService as SearchServiceSchema,
  SetKind as SetKindSchema,
  SetRecord,
  SetRecordPage,
  TaskDetails,
} from '@iris/shared';

/** An image set or a training set (with download counts), or a product set (with its image set). */
export type DataSet = z.infer<typeof DataSetSchema> | z.infer<typeof ProductSet>;

export type SetKind = z.infer<typeof SetKindSchema>;

export type RecordRow = z.infer<typeof SetRecord>;
export type RecordPage = z.infer<typeof SetRecordPage>;
export type SearchService = z.infer<typeof SearchServiceSchema>;
/** A hit of an image search; a product search's hits add the product's id, price and keywords. */
export type SearchHit = z.infer<typeof SearchHitSchema> & Partial<Pick<z.infer<typeof ProductHit>, 'product_id' | 'price' | 'keywords'>>;
/** The sets with download counts (image and training sets): product sets have none. */
export type CountedSet = z.infer<typeof DataSetSchema>;
export type CustomService = z.infer<typeof CustomServiceSchema>;
export type BatchTask = z.infer<typeof TaskDetails>;
export type LabelCount = z.infer<typeof LabelCounts>['results'][number];
