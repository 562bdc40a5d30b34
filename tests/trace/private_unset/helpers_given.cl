/*---
name = "private arrays and structs handed to helpers that fill and read them"
family = "custom"
kernel = "blend"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
#define TAPS 4
#define PARTS 2

typedef struct {
    float w[TAPS];
    int used;
} bank_t;

/* Sets the first n weights: called with n = TAPS - 1, so w[TAPS - 1] stays unwritten. */
void fill(float *w, int n, float v)
{
    for (int k = 0; k < n; k++)
        w[k] = v / (float)(k + 1);
}

float dot(const float *a, const float *b)
{
    float s = 0.0f;
    for (int k = 0; k < TAPS; k++)
        s += a[k] * b[k];
    return s;
}

void add(bank_t *bank, float v)
{
    bank->w[bank->used] = v;
    bank->used++;
}

float sum(const bank_t *bank)
{
    float s = 0.0f;
    for (int k = 0; k <= bank->used; k++)  /* one past the last weight set */
        s += bank->w[k];
    return s;
}

float first_weights(const bank_t *parts)
{
    return parts[0].w[0] + parts[PARTS].w[0];  /* parts[PARTS]: past the array */
}

__kernel void blend(__global const float *x, __global float *out)
{
    int i = get_global_id(0);
    float v = x[i];
    float coef[TAPS], taps[TAPS];
    fill(coef, TAPS - 1, 1.0f);
    for (int k = 0; k < TAPS; k++)
        taps[k] = x[(i + k) % 64];
    float r = dot(taps, coef) + dot(coef, taps);
    bank_t bank;
    bank.used = 0;
    for (int k = 0; k < TAPS; k++)
        add(&bank, v);
    r += sum(&bank);
    bank_t parts[PARTS];
    for (int p = 0; p < PARTS; p++)
        fill(parts[p].w, TAPS, v);
    out[i] = r + coef[TAPS - 1] + first_weights(parts);
}
