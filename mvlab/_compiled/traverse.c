/* The compiled traversal of a compact forest's flat arrays (mvlab.siamese._traverse, which documents it).

   accumulate_leaves(*, X, trees, weights, acc, node_offsets, leaf_offsets, max_depths, right, left, feature,
                     threshold, leaf_classes, leaf_counts, leaf_totals, leaf_values, staged=True)

   Every argument by keyword (mvlab.siamese._traverse.ForestArrays names the forest's arrays); left=None for
   depth-first trees, whose internal nodes' left child is the next node.

   acc[r, :] += weights[k] * p_k(r) for k = 0, 1, ... in order, p_k(r) the class distribution of the leaf that row r
   of X reaches in tree trees[k] (Eqs. 9 and 12). Every argument is read through the buffer protocol, C-contiguous and
   aligned on its element size; every index array (trees, offsets, depths, children, features, leaf classes, counts)
   of an integer type, in whichever width the compact forest chose (a float or a bool is refused, not read as an
   index). The descent and the sums run without the GIL, so nothing they use as an index is read from the caller's
   memory there: every tree's offsets, depth and weight are copied and checked before the GIL goes, and each tree's
   nodes and leaf classes are copied into this call's own memory, then checked, as it is unpacked; another thread
   writing the arrays, or acc aliasing one of them, can change the sums, never where the loop reads or writes. A tree
   whose claimed depth is not its real depth (its longest path from the root) is refused, so a descent takes no
   more steps than the tree has. Whatever is wrong raises ValueError, saying what.

   Exactness. A row goes left when x <= threshold, both as float32 (a byte value or a byte threshold is exact in
   float32), and right otherwise, NaN included: scikit-learn's Tree.apply. acc[r, c] += w * v is one product then
   one sum, as numpy's acc += w * P; the module is compiled with -ffp-contract=off so no fused multiply-add merges
   them. A leaf's distribution from counts is (double) count / (double) total, as scikit-learn divides them. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#define COMPACT_EVERY 2 /* steps between two compactions of the list of rows not yet on a leaf */

typedef struct {
    Py_buffer b;
    char kind; /* 'i' signed, 'u' unsigned, 'f' float */
    int held;
} Array;

/* One node of an unpacked tree, 16 bytes: a step down reads one of them. A leaf is its own right child, with a NaN
   threshold (x <= NaN never holds, so every row there steps right, onto the leaf itself), and its left child holds
   the leaf's index among the forest's leaves instead. */
typedef struct {
    uint32_t kid[2];
    uint32_t feature;
    float cut;
} Node;

#define ON_LEAF(rec, j) ((rec)[j].kid[1] == (j)) /* an internal node's right child comes after it */

enum { ANY_NUMBER, INTEGERS }; /* what an argument's elements may be: indices and counts are whole numbers */

/* obj's buffer, C-contiguous (writable when asked), of one numeric element type of 1, 2, 4 or 8 bytes (integers only
   when want is INTEGERS: a float or a bool where an index is meant is refused, not read as one), aligned on its
   element size (a misaligned buffer is not read through typed pointers). */
static int get_array(PyObject *obj, Array *a, int writable, int want, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &a->b, flags) < 0) {
        PyErr_Format(PyExc_ValueError, "accumulate_leaves: %s must be a C-contiguous%s array.", name,
                     writable ? " writable" : "");
        return -1;
    }
    a->held = 1;
    const char *f = a->b.format ? a->b.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    switch (*f) {
    case 'B': case 'H': case 'I': case 'L': case 'Q': a->kind = 'u'; break;
    case 'b': case 'h': case 'i': case 'l': case 'q': a->kind = 'i'; break;
    case 'f': case 'd': a->kind = 'f'; break;
    default: a->kind = 0; /* '?' (bool) among them: not a number here */
    }
    Py_ssize_t s = a->b.itemsize;
    int ok = a->kind == 'f' ? (s == 4 || s == 8) : (a->kind && (s == 1 || s == 2 || s == 4 || s == 8));
    if (!ok || f[1] != '\0' || (want == INTEGERS && a->kind == 'f')) {
        PyErr_Format(PyExc_ValueError, "accumulate_leaves: %s has an unsupported element type '%s'%s.", name,
                     a->b.format ? a->b.format : "B", want == INTEGERS ? " (it holds whole numbers: an integer type)"
                                                                        : "");
        return -1;
    }
    if ((uintptr_t)a->b.buf % (uintptr_t)s != 0) {
        PyErr_Format(PyExc_ValueError, "accumulate_leaves: %s is not aligned on its element size (%zd bytes).", name,
                     s);
        return -1;
    }
    return 0;
}

static Py_ssize_t length(const Array *a) { return a->b.len / a->b.itemsize; }

/* Element i of an integer array, whatever its width and sign. */
static inline int64_t read_int(const Array *a, Py_ssize_t i) {
    const char *p = (const char *)a->b.buf;
    int sgn = a->kind == 'i';
    switch (a->b.itemsize) {
    case 1: return sgn ? (int64_t)((const int8_t *)p)[i] : (int64_t)((const uint8_t *)p)[i];
    case 2: return sgn ? (int64_t)((const int16_t *)p)[i] : (int64_t)((const uint16_t *)p)[i];
    case 4: return sgn ? (int64_t)((const int32_t *)p)[i] : (int64_t)((const uint32_t *)p)[i];
    default: return sgn ? ((const int64_t *)p)[i] : (int64_t)((const uint64_t *)p)[i];
    }
}

/* Element i of any numeric array as double (integers of more than 53 bits are not expected here). */
static inline double read_real(const Array *a, Py_ssize_t i) {
    if (a->kind == 'f')
        return a->b.itemsize == 4 ? (double)((const float *)a->b.buf)[i] : ((const double *)a->b.buf)[i];
    return (double)read_int(a, i);
}

/* Elements base .. base + n - 1 of an integer array, whatever its width and sign, into out (one loop per width, so
   each is a plain widening copy). */
#define COPY_WIDE(SRC_T)                                                                                      \
    for (Py_ssize_t j = 0; j < n; j++) out[j] = (int64_t)((const SRC_T *)a->b.buf)[base + j];              \
    return
static void read_ints(const Array *a, Py_ssize_t base, Py_ssize_t n, int64_t *out) {
    int sgn = a->kind == 'i';
    switch (a->b.itemsize) {
    case 1: if (sgn) { COPY_WIDE(int8_t); } else { COPY_WIDE(uint8_t); }
    case 2: if (sgn) { COPY_WIDE(int16_t); } else { COPY_WIDE(uint16_t); }
    case 4: if (sgn) { COPY_WIDE(int32_t); } else { COPY_WIDE(uint32_t); }
    default: if (sgn) { COPY_WIDE(int64_t); } else { COPY_WIDE(uint64_t); }
    }
}
#undef COPY_WIDE

/* The same for the thresholds, as float32: float32 itself, or bytes (exact in float32; no other kind is accepted). */
static void read_cuts(const Array *a, Py_ssize_t base, Py_ssize_t n, float *out) {
    if (a->kind == 'f') {
        memcpy(out, (const float *)a->b.buf + base, sizeof(float) * (size_t)n);
        return;
    }
    for (Py_ssize_t j = 0; j < n; j++) out[j] = (float)((const uint8_t *)a->b.buf)[base + j];
}

/* Scratch of one tree's columns, widened (most nodes of any tree each). */
typedef struct {
    int64_t *right, *left, *feature;
    float *cut;
    uint32_t *depth, *classes; /* the nodes' depths; the leaves' classes (one-class leaves), copied and checked */
} Columns;

/* Tree t's nodes (base .. base + n_nodes - 1 of the forest's arrays) copied, then checked and unpacked into rec
   (Node): what the caller's arrays hold is read once, into this call's own memory, and only that copy is checked and
   used (another thread writing the arrays meanwhile changes nothing checked). Every child must come after its
   parent (scikit-learn numbers them so), which also bounds a descent by the tree's node count; the tree's real depth
   (its longest path from the root) must be the depth claimed (max_depths), so a descent takes no more steps than
   the tree has. Returns an error message, or NULL. */
static const char *unpack_tree(Py_ssize_t base, Py_ssize_t n_nodes, int64_t first_leaf, int64_t n_leaves,
                               uint32_t claimed_depth, const Array *right, const Array *left, int implicit,
                               const Array *feature, const Array *threshold, Py_ssize_t n_features,
                               const Array *classes, Py_ssize_t n_classes, const Columns *w, Node *rec) {
    for (int64_t i = 0; classes != NULL && i < n_leaves; i++) { /* one-class leaves: their classes, copied */
        int64_t c = read_int(classes, first_leaf + i);
        if (c < 0 || c >= n_classes) return "a leaf's class lies outside acc's columns";
        w->classes[i] = (uint32_t)c;
    }
    read_ints(right, base, n_nodes, w->right);
    if (!implicit) read_ints(left, base, n_nodes, w->left);
    read_ints(feature, base, n_nodes, w->feature);
    read_cuts(threshold, base, n_nodes, w->cut);
    int64_t leaf = first_leaf;
    uint32_t deepest = 0;
    for (Py_ssize_t j = 0; j < n_nodes; j++) w->depth[j] = 0;
    for (Py_ssize_t j = 0; j < n_nodes; j++) {
        int64_t child = w->right[j];
        if (child == -1) {
            if (leaf >= first_leaf + n_leaves) return "a tree has more leaves than leaf_offsets gives it";
            rec[j].kid[0] = (uint32_t)leaf++;
            rec[j].kid[1] = (uint32_t)j;
            rec[j].feature = 0;
            rec[j].cut = NAN;
            if (w->depth[j] > deepest) deepest = w->depth[j];
            continue;
        }
        int64_t l = implicit ? (int64_t)j + 1 : w->left[j];
        int64_t f = w->feature[j];
        if (child <= j || child >= n_nodes || l <= j || l >= n_nodes) return "a child index lies outside its tree";
        if (f < 0 || f >= n_features) return "a feature index lies outside the rows' columns";
        rec[j].kid[0] = (uint32_t)l;
        rec[j].kid[1] = (uint32_t)child;
        rec[j].feature = (uint32_t)f;
        rec[j].cut = w->cut[j];
        uint32_t below = w->depth[j] + 1; /* the longest path to a child: children come after their parent */
        if (w->depth[l] < below) w->depth[l] = below;
        if (w->depth[child] < below) w->depth[child] = below;
    }
    if (leaf != first_leaf + n_leaves) return "a tree has fewer leaves than leaf_offsets gives it";
    if (deepest != claimed_depth) return "max_depths differs from a tree's real depth";
    return NULL;
}

/* One tree of the call, as checked before the GIL goes: its nodes (lo .. hi - 1) and leaves (a .. b - 1) in the
   forest's arrays, its depth and its weight. */
typedef struct {
    int64_t lo, hi, a, b;
    uint32_t depth;
    double w;
} TreePlan;

/* Every row's leaf in the unpacked tree rec, into node (n,): max_depth / 2 steps for all rows, then steps for the
   rows not yet on a leaf (rows, their nodes at: scratch of n); staged = 0 steps every row the whole depth. Returns
   how many rows are not on a leaf after max_depth steps (0 unless max_depth is less than the tree's depth). One
   definition per type of the rows (float32, or bytes against byte thresholds). */
#define DEFINE_DESCEND(NAME, T)                                                                               \
    static __attribute__((noinline)) size_t NAME(const T *restrict X, size_t d, size_t n, const Node *rec,    \
                                                 uint32_t max_depth, uint32_t *node, uint32_t *rows,          \
                                                 uint32_t *at, int staged) {                                  \
        for (size_t r = 0; r < n; r++) node[r] = 0;                                                            \
        uint32_t done = staged ? max_depth / 2 : max_depth;                                                    \
        for (uint32_t s = 0; s < done; s++)                                                                    \
            for (size_t r = 0; r < n; r++) {                                                                   \
                const Node *v = rec + node[r];                                                                 \
                node[r] = v->kid[!((float)X[r * d + v->feature] <= v->cut)];                                   \
            }                                                                                                  \
        size_t m = 0;                                                                                          \
        for (size_t r = 0; r < n; r++) {                                                                       \
            rows[m] = (uint32_t)r;                                                                             \
            at[m] = node[r];                                                                                   \
            m += !ON_LEAF(rec, node[r]);                                                                       \
        }                                                                                                      \
        while (done < max_depth && m > 0) {                                                                    \
            uint32_t steps = max_depth - done < COMPACT_EVERY ? max_depth - done : COMPACT_EVERY;              \
            for (uint32_t s = 0; s < steps; s++)                                                               \
                for (size_t i = 0; i < m; i++) {                                                               \
                    const Node *v = rec + at[i];                                                               \
                    at[i] = v->kid[!((float)X[(size_t)rows[i] * d + v->feature] <= v->cut)];                   \
                }                                                                                              \
            done += steps;                                                                                     \
            size_t kept = 0;                                                                                   \
            for (size_t i = 0; i < m; i++) {                                                                   \
                uint32_t r = rows[i], a = at[i];                                                               \
                node[r] = a;                                                                                   \
                rows[kept] = r;                                                                                \
                at[kept] = a;                                                                                  \
                kept += !ON_LEAF(rec, a);                                                                      \
            }                                                                                                  \
            m = kept;                                                                                          \
        }                                                                                                      \
        return m;                                                                                              \
    }

DEFINE_DESCEND(descend_float32, float)
DEFINE_DESCEND(descend_bytes, uint8_t)

static PyObject *accumulate_leaves(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    enum { X, TREES, WEIGHTS, NODE_OFF, LEAF_OFF, DEPTHS, RIGHT, LEFT, FEATURE, THRESHOLD, CLASSES, COUNTS, TOTALS,
           VALUES, ACC, N_ARRAYS };
    static char *kwlist[] = {"X", "trees", "weights", "node_offsets", "leaf_offsets", "max_depths", "right", "left",
                             "feature", "threshold", "leaf_classes", "leaf_counts", "leaf_totals", "leaf_values",
                             "acc", "staged", NULL};
    PyObject *objs[N_ARRAYS] = {NULL};
    int staged = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOOOOOOOOOOOOp:accumulate_leaves", kwlist, &objs[0],
                                     &objs[1], &objs[2], &objs[3], &objs[4], &objs[5], &objs[6], &objs[7], &objs[8],
                                     &objs[9], &objs[10], &objs[11], &objs[12], &objs[13], &objs[14], &staged))
        return NULL;
    for (int i = 0; i < N_ARRAYS; i++)
        if (objs[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "accumulate_leaves: the keyword argument %s is missing.", kwlist[i]);
            return NULL;
        }
    int implicit = objs[LEFT] == Py_None; /* depth-first trees: no left children stored */
    Array arr[N_ARRAYS];
    memset(arr, 0, sizeof arr);
    Columns cols = {NULL, NULL, NULL, NULL, NULL, NULL};
    Node *rec = NULL;
    TreePlan *plan = NULL;
    uint32_t *node = NULL, *rows = NULL, *at = NULL;
    const char *error = NULL;
    PyObject *result = NULL;
    for (int i = 0; i < N_ARRAYS; i++) {
        int want = (i == X || i == WEIGHTS || i == THRESHOLD || i == VALUES || i == ACC) ? ANY_NUMBER : INTEGERS;
        if (!(i == LEFT && implicit) && get_array(objs[i], &arr[i], i == ACC, want, kwlist[i]) < 0) goto done;
    }

    Array *x = &arr[X], *acc = &arr[ACC];
    int byte_rows = x->kind == 'u' && x->b.itemsize == 1;
    if (x->b.ndim != 2 || !(byte_rows || (x->kind == 'f' && x->b.itemsize == 4))) {
        error = "X must be a 2-d array of float32 or uint8";
        goto done;
    }
    size_t n = (size_t)x->b.shape[0], d = (size_t)x->b.shape[1];
    if (acc->b.ndim != 2 || acc->kind != 'f' || acc->b.itemsize != 8 || (size_t)acc->b.shape[0] != n) {
        error = "acc must be float64 of shape (rows of X, classes)";
        goto done;
    }
    if (n > UINT32_MAX) {
        error = "X has more rows than 2**32 - 1";
        goto done;
    }
    Py_ssize_t n_classes = acc->b.shape[1];
    Py_ssize_t K = length(&arr[TREES]), T = length(&arr[NODE_OFF]) - 1;
    if (length(&arr[WEIGHTS]) != K || T < 0 || length(&arr[LEAF_OFF]) != T + 1 || length(&arr[DEPTHS]) != T) {
        error = "trees and weights, or node_offsets, leaf_offsets and max_depths, do not match in length";
        goto done;
    }
    int by_class = length(&arr[CLASSES]) > 0, by_value = length(&arr[VALUES]) > 0;
    Py_ssize_t n_leaves_kept = by_class ? length(&arr[CLASSES])
                             : by_value ? length(&arr[VALUES]) / (n_classes ? n_classes : 1)
                                        : length(&arr[TOTALS]);
    if ((by_value && length(&arr[VALUES]) != n_leaves_kept * n_classes) ||
        (!by_class && !by_value && length(&arr[COUNTS]) != n_leaves_kept * n_classes)) {
        error = "the leaves' distributions do not have one value per class";
        goto done;
    }
    Py_ssize_t n_nodes_kept = length(&arr[RIGHT]);
    if (length(&arr[FEATURE]) < n_nodes_kept || length(&arr[THRESHOLD]) < n_nodes_kept ||
        (!implicit && length(&arr[LEFT]) < n_nodes_kept)) {
        error = "right, left, feature and threshold do not match in length";
        goto done;
    }
    if (!(arr[WEIGHTS].kind == 'f' && arr[WEIGHTS].b.itemsize == 8)) {
        error = "weights must be float64";
        goto done;
    }
    plan = PyMem_RawMalloc(sizeof(TreePlan) * (size_t)(K ? K : 1));
    if (!plan) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t most = 1, most_leaves = 1;
    for (Py_ssize_t k = 0; k < K; k++) { /* every tree's offsets, depth and weight copied, then checked */
        int64_t t = read_int(&arr[TREES], k);
        if (t < 0 || t >= T) {
            error = "a tree index lies outside the forest";
            goto done;
        }
        int64_t lo = read_int(&arr[NODE_OFF], t), hi = read_int(&arr[NODE_OFF], t + 1);
        int64_t a = read_int(&arr[LEAF_OFF], t), b = read_int(&arr[LEAF_OFF], t + 1);
        int64_t depth = read_int(&arr[DEPTHS], t);
        if (lo < 0 || hi <= lo || hi > n_nodes_kept || hi - lo > UINT32_MAX || a < 0 || b < a || b > n_leaves_kept ||
            b > UINT32_MAX || depth < 0 || depth >= hi - lo) { /* n nodes are at most n - 1 deep */
            error = "node_offsets, leaf_offsets or max_depths lie outside the forest's arrays";
            goto done;
        }
        plan[k] = (TreePlan){lo, hi, a, b, (uint32_t)depth, ((const double *)arr[WEIGHTS].b.buf)[k]};
        if (hi - lo > most) most = (Py_ssize_t)(hi - lo);
        if (b - a > most_leaves) most_leaves = (Py_ssize_t)(b - a);
    }
    cols.right = PyMem_RawMalloc(sizeof(int64_t) * (size_t)most);
    cols.left = PyMem_RawMalloc(sizeof(int64_t) * (size_t)most);
    cols.feature = PyMem_RawMalloc(sizeof(int64_t) * (size_t)most);
    cols.cut = PyMem_RawMalloc(sizeof(float) * (size_t)most);
    cols.depth = PyMem_RawMalloc(sizeof(uint32_t) * (size_t)most);
    cols.classes = PyMem_RawMalloc(sizeof(uint32_t) * (size_t)most_leaves);
    rec = PyMem_RawMalloc(sizeof(Node) * (size_t)most);
    node = PyMem_RawMalloc(sizeof(uint32_t) * (n ? n : 1));
    rows = PyMem_RawMalloc(sizeof(uint32_t) * (n ? n : 1));
    at = PyMem_RawMalloc(sizeof(uint32_t) * (n ? n : 1));
    if (!rec || !node || !rows || !at || !cols.right || !cols.left || !cols.feature || !cols.cut || !cols.depth ||
        !cols.classes) {
        PyErr_NoMemory();
        goto done;
    }
    double *sums = (double *)acc->b.buf;
    const double *values = by_value ? (const double *)arr[VALUES].b.buf : NULL;
    if (!((arr[THRESHOLD].kind == 'f' && arr[THRESHOLD].b.itemsize == 4) ||
          (arr[THRESHOLD].kind == 'u' && arr[THRESHOLD].b.itemsize == 1))) {
        error = "threshold must be float32 or uint8, as a compact forest keeps it";
        goto done;
    }
    if (by_value && !(arr[VALUES].kind == 'f' && arr[VALUES].b.itemsize == 8)) {
        error = "leaf_values must be float64";
        goto done;
    }
    /* From here on, without the GIL, the loop reads the caller's arrays only for values (the rows, the thresholds and
       the leaves' distributions, copied per tree or read as numbers) and every index from this call's own copies
       (plan, each tree's unpacked nodes and leaf classes): another thread writing the arrays, or acc aliasing one of them,
       changes sums, never where the loop reads or writes. */
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < K && !error; k++) {
        const TreePlan *p = &plan[k];
        error = unpack_tree((Py_ssize_t)p->lo, (Py_ssize_t)(p->hi - p->lo), p->a, p->b - p->a, p->depth, &arr[RIGHT],
                            &arr[LEFT], implicit, &arr[FEATURE], &arr[THRESHOLD], (Py_ssize_t)d,
                            by_class ? &arr[CLASSES] : NULL, n_classes, &cols, rec);
        if (error) break;
        size_t short_of_a_leaf =
            byte_rows ? descend_bytes((const uint8_t *)x->b.buf, d, n, rec, p->depth, node, rows, at, staged)
                      : descend_float32((const float *)x->b.buf, d, n, rec, p->depth, node, rows, at, staged);
        if (short_of_a_leaf) {
            error = "a row did not reach a leaf within max_depths' steps";
            break;
        }
        double w = p->w;
        for (size_t r = 0; r < n; r++) {
            size_t i = rec[node[r]].kid[0];
            double *row = sums + r * (size_t)n_classes;
            if (by_class) {
                row[cols.classes[i - (size_t)p->a]] += w;
            } else if (by_value) {
                for (Py_ssize_t c = 0; c < n_classes; c++) row[c] += w * values[i * n_classes + c];
            } else {
                double total = read_real(&arr[TOTALS], i);
                for (Py_ssize_t c = 0; c < n_classes; c++)
                    row[c] += w * (read_real(&arr[COUNTS], i * n_classes + c) / total);
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (!error) {
        Py_INCREF(Py_None);
        result = Py_None;
    }
done:
    if (error && !PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "accumulate_leaves: %s.", error);
    for (int i = 0; i < N_ARRAYS; i++)
        if (arr[i].held) PyBuffer_Release(&arr[i].b);
    PyMem_RawFree(cols.right);
    PyMem_RawFree(cols.left);
    PyMem_RawFree(cols.feature);
    PyMem_RawFree(cols.cut);
    PyMem_RawFree(cols.depth);
    PyMem_RawFree(plan);
    PyMem_RawFree(cols.classes);
    PyMem_RawFree(rec);
    PyMem_RawFree(node);
    PyMem_RawFree(rows);
    PyMem_RawFree(at);
    return result;
}

static PyMethodDef methods[] = {
    {"accumulate_leaves", (PyCFunction)(void (*)(void))accumulate_leaves, METH_VARARGS | METH_KEYWORDS,
     "acc[r, :] += weights[k] * p_k(r) for every tree trees[k] of a compact forest (mvlab.siamese._traverse)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "traverse",
                                    "The compiled traversal of compact forests (mvlab.siamese._traverse).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_traverse(void) { return PyModule_Create(&module); }
