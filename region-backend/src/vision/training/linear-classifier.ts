/**
 * The trained model of a custom classifier: a feature normalisation followed by a softmax layer,
 * p = softmax(W · ((x − mean) ⊙ scale) + b). Pure functions on Float32Arrays: the trainer builds it, the
 * repository stores it, inference tasks apply it.
 */
export interface LinearClassifier {
  dim: number;
  classes: number;
  mean: Float32Array;
  scale: Float32Array;
  /** classes × dim, row-major. */
  weights: Float32Array;
  bias: Float32Array;
}

/** Checks the sizes of a model's arrays (models come from the database and from other threads). */
export function assertClassifier(model: LinearClassifier): LinearClassifier {
  const { dim, classes } = model;
  const ok =
    Number.isInteger(dim) &&
    Number.isInteger(classes) &&
    dim > 0 &&
    classes > 1 &&
    model.mean?.length === dim &&
    model.scale?.length === dim &&
    model.weights?.length === dim * classes &&
    model.bias?.length === classes;
  if (!ok) throw new RangeError(`inconsistent classifier arrays (dim ${dim}, classes ${classes})`);
  return model;
}

/** Softmax in place over `values` (numerically stable); returns the same array. */
export function softmaxInPlace(values: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const e = Math.exp(values[i]! - max);
    values[i] = e;
    sum += e;
  }
  for (let i = 0; i < values.length; i++) values[i] = values[i]! / sum;
  return values;
}

/** Class probabilities of one feature vector (`features` from `offset`, `dim` values). */
export function classProbabilities(model: LinearClassifier, features: Float32Array, offset = 0): Float64Array {
  const { dim, classes, mean, scale, weights, bias } = model;
  const x = new Float64Array(dim);
  for (let j = 0; j < dim; j++) x[j] = (features[offset + j]! - mean[j]!) * scale[j]!;
  const z = new Float64Array(classes);
  for (let c = 0; c < classes; c++) {
    let s = bias[c]!;
    const row = c * dim;
    for (let j = 0; j < dim; j++) s += weights[row + j]! * x[j]!;
    z[c] = s;
  }
  return softmaxInPlace(z);
}

/**
 * Probabilities for an image given the features of one or more of its views (`views` × dim values): the mean
 * of the views' probability vectors, so they still sum to 1.
 */
export function predictImage(model: LinearClassifier, features: Float32Array, views = 1): Float64Array {
  if (features.length !== views * model.dim) throw new RangeError(`expected ${views} × ${model.dim} feature values, got ${features.length}`);
  const out = new Float64Array(model.classes);
  for (let v = 0; v < views; v++) {
    const p = classProbabilities(model, features, v * model.dim);
    for (let c = 0; c < out.length; c++) out[c] = out[c]! + p[c]! / views;
  }
  return out;
}
