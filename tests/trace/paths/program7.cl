/* Particles staged in local memory and read back through one helper by two kernels: the
   kinetic energy reads a particle's mass and velocity (through a second helper), the
   collision count its flags too, which no kernel here loads: only the count reads them. */
typedef struct {
    float mass;
    float vx, vy, vz;
    uint flags; /* kept by the host's own bookkeeping, never loaded here */
} Particle;

static Particle particle_at(__local const Particle *cache, int j)
{
    return cache[j]; /* the whole particle, flags too */
}

static float kinetic_of(__local const Particle *cache, int j)
{
    const Particle p = particle_at(cache, j);
    return 0.5f * p.mass * (p.vx * p.vx + p.vy * p.vy + p.vz * p.vz);
}

static void load_particle(__local Particle *cache, __global const float4 *v, int l, int g)
{
    cache[l].mass = v[g].w;
    cache[l].vx = v[g].x;
    cache[l].vy = v[g].y;
    cache[l].vz = v[g].z;
}

__kernel void neighbour_energy(__global const float4 *v, __global float *energy)
{
    __local Particle cache[16];
    const int l = get_local_id(0), g = get_global_id(0);
    load_particle(cache, v, l, g);
    barrier(CLK_LOCAL_MEM_FENCE);
    energy[g] = kinetic_of(cache, l) + kinetic_of(cache, (l + 1) % 16);
}

__kernel void flagged_neighbours(__global const float4 *v, __global uint *flagged)
{
    __local Particle cache[16];
    const int l = get_local_id(0), g = get_global_id(0);
    load_particle(cache, v, l, g);
    barrier(CLK_LOCAL_MEM_FENCE);
    const Particle next = particle_at(cache, (l + 1) % 16);
    flagged[g] = (next.flags & 1u) && next.mass > 0.0f;
}
