inline float offset(float x) { return x + 1.0f; }
