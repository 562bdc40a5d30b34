// Our own racy kernel for `check --sim`: every work-item writes the same element.
__kernel void last_writer(__global int* out)
{
    out[0] = (int)get_global_id(0);
}
