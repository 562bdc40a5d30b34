#ifndef COMMON_H
#define COMMON_H
#define SQR(x) ((x) * (x))
typedef struct { float x, y; } pt;
inline float dist2(pt a, pt b) { return SQR(a.x - b.x) + SQR(a.y - b.y); }
#endif
