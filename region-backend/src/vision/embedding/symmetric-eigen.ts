/**
 * Eigen-decomposition of a real symmetric matrix: Householder reduction to tridiagonal form, then the
 * implicit QL algorithm (tred2/tql2 of EISPACK, as in JAMA). Exact and dependency-free; O(n³), a few seconds
 * for the 1,000–2,000-dimensional covariance matrices PCA-whitening is learned from.
 */
export interface Eigen {
  /** Eigenvalues, largest first. */
  values: Float64Array;
  /** Eigenvectors as rows (row i belongs to values[i]), n × n row-major. */
  vectors: Float64Array;
}

/** `a` is n × n row-major and symmetric; it is not modified. */
export function symmetricEigen(a: Float64Array, n: number): Eigen {
  if (a.length !== n * n) throw new Error('symmetricEigen: matrix size mismatch');
  // v[i*n + j] = V[i][j] during tred2; tql2 works on the transpose so that rotations touch contiguous rows.
  const v = Float64Array.from(a);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tred2(v, d, e, n);
  const vt = transpose(v, n);
  tql2(vt, d, e, n);
  const order = Array.from(d.keys()).sort((x, y) => d[y]! - d[x]!);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    values[dst] = d[src]!;
    vectors.set(vt.subarray(src * n, src * n + n), dst * n);
  });
  return { values, vectors };
}

function transpose(m: Float64Array, n: number): Float64Array {
  const t = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) t[j * n + i] = m[i * n + j]!;
  return t;
}

function tred2(V: Float64Array, d: Float64Array, e: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) d[j] = V[(n - 1) * n + j]!;
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k]!);
    if (scale === 0) {
      e[i] = d[i - 1]!;
      for (let j = 0; j < i; j++) {
        d[j] = V[(i - 1) * n + j]!;
        V[i * n + j] = 0;
        V[j * n + i] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] = d[k]! / scale;
        h += d[k]! * d[k]!;
      }
      let f = d[i - 1]!;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        V[j * n + i] = f;
        g = e[j]! + V[j * n + j]! * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += V[k * n + j]! * d[k]!;
          e[k] = e[k]! + V[k * n + j]! * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] = e[j]! / h;
        f += e[j]! * d[j]!;
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] = e[j]! - hh * d[j]!;
      for (let j = 0; j < i; j++) {
        f = d[j]!;
        g = e[j]!;
        for (let k = j; k <= i - 1; k++) V[k * n + j] = V[k * n + j]! - (f * e[k]! + g * d[k]!);
        d[j] = V[(i - 1) * n + j]!;
        V[i * n + j] = 0;
      }
    }
    d[i] = h;
  }
  for (let i = 0; i < n - 1; i++) {
    V[(n - 1) * n + i] = V[i * n + i]!;
    V[i * n + i] = 1;
    const h = d[i + 1]!;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = V[k * n + i + 1]! / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += V[k * n + i + 1]! * V[k * n + j]!;
        for (let k = 0; k <= i; k++) V[k * n + j] = V[k * n + j]! - g * d[k]!;
      }
    }
    for (let k = 0; k <= i; k++) V[k * n + i + 1] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = V[(n - 1) * n + j]!;
    V[(n - 1) * n + j] = 0;
  }
  V[(n - 1) * n + n - 1] = 1;
  e[0] = 0;
}

/** QL with implicit shifts; `W` is the transposed accumulation matrix (row i = column i of V). */
function tql2(W: Float64Array, d: Float64Array, e: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) e[i - 1] = e[i]!;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]!) + Math.abs(e[l]!));
    let m = l;
    while (m < n) {
      if (Math.abs(e[m]!) <= eps * tst1) break;
      m++;
    }
    if (m > l) {
      let iter = 0;
      do {
        if (++iter > 100) throw new Error('symmetricEigen: no convergence');
        let g = d[l]!;
        let p = (d[l + 1]! - g) / (2 * e[l]!);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l]! / (p + r);
        d[l + 1] = e[l]! * (p + r);
        const dl1 = d[l + 1]!;
        let h = g - d[l]!;
        for (let i = l + 2; i < n; i++) d[i] = d[i]! - h;
        f += h;
        p = d[m]!;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1]!;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i]!;
          h = c * p;
          r = Math.hypot(p, e[i]!);
          e[i + 1] = s * r;
          s = e[i]! / r;
          c = p / r;
          p = c * d[i]! - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]!);
          const a = i * n;
          const b = (i + 1) * n;
          for (let k = 0; k < n; k++) {
            const hk = W[b + k]!;
            const wk = W[a + k]!;
            W[b + k] = s * wk + c * hk;
            W[a + k] = c * wk - s * hk;
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]!) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]!) > eps * tst1);
    }
    d[l] = d[l]! + f;
    e[l] = 0;
  }
}

/**
 * The k leading eigenpairs of a symmetric positive semi-definite matrix by block power (subspace) iteration
 * with a Rayleigh–Ritz step: O(n²·k) per iteration instead of the O(n³) of a full decomposition. Vectors are
 * returned as rows, n each.
 */
export function leadingEigen(a: Float64Array, n: number, k: number, iterations = 5, seed = 1): Eigen {
  // Oversampling makes a few iterations enough for the leading k (randomised subspace iteration).
  const m = Math.min(n, k + Math.max(8, Math.ceil(k * 0.25)));
  let s = seed >>> 0 || 1;
  const random = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296 - 0.5;
  };
  let q: Float64Array = new Float64Array(m * n);
  for (let i = 0; i < q.length; i++) q[i] = random();
  orthonormaliseRows(q, m, n);
  for (let it = 0; it < iterations; it++) {
    q = multiplyRows(a, n, q, m);
    orthonormaliseRows(q, m, n);
  }
  // Rayleigh–Ritz: eigen-decompose T = Q A Qᵀ (m × m) and rotate the basis.
  const aq = multiplyRows(a, n, q, m);
  const t = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = i; j < m; j++) {
      let sum = 0;
      for (let x = 0; x < n; x++) sum += q[i * n + x]! * aq[j * n + x]!;
      t[i * m + j] = sum;
      t[j * m + i] = sum;
    }
  }
  const small = symmetricEigen(t, m);
  const count = Math.min(k, m);
  const values = small.values.slice(0, count);
  const vectors = new Float64Array(count * n);
  for (let r = 0; r < count; r++) {
    const out = r * n;
    for (let j = 0; j < m; j++) {
      const c = small.vectors[r * m + j]!;
      if (c === 0) continue;
      const row = j * n;
      for (let x = 0; x < n; x++) vectors[out + x] = vectors[out + x]! + c * q[row + x]!;
    }
  }
  return { values, vectors };
}

/** Rows of the result are A·qᵢ for each row qᵢ of q (A symmetric n × n). */
function multiplyRows(a: Float64Array, n: number, q: Float64Array, m: number): Float64Array {
  const out = new Float64Array(m * n);
  for (let i = 0; i < n; i++) {
    const rowA = i * n;
    for (let r = 0; r < m; r++) {
      const rowQ = r * n;
      let sum = 0;
      for (let x = 0; x < n; x++) sum += a[rowA + x]! * q[rowQ + x]!;
      out[rowQ + i] = sum;
    }
  }
  return out;
}

/** Modified Gram–Schmidt on the rows (a row that becomes numerically zero is replaced by zeros). */
function orthonormaliseRows(q: Float64Array, m: number, n: number): void {
  for (let r = 0; r < m; r++) {
    const row = r * n;
    for (let p = 0; p < r; p++) {
      const prev = p * n;
      let d = 0;
      for (let x = 0; x < n; x++) d += q[row + x]! * q[prev + x]!;
      for (let x = 0; x < n; x++) q[row + x] = q[row + x]! - d * q[prev + x]!;
    }
    let norm = 0;
    for (let x = 0; x < n; x++) norm += q[row + x]! * q[row + x]!;
    norm = Math.sqrt(norm);
    for (let x = 0; x < n; x++) q[row + x] = norm > 1e-12 ? q[row + x]! / norm : 0;
  }
}
