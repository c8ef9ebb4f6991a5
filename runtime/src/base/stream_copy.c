/* Non-temporal copies (stream_copy.h). */
#include <stdint.h>
#include <string.h>

#include "stream_copy.h"

#if defined(__SSE2__)
#include <emmintrin.h>

void tkhi_stream_copy(void *dst, const void *src, size_t bytes)
{
    enum { SMALL = 4096 }; /* below this the fence costs more than it saves */
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (bytes < SMALL) {
        memcpy(d, s, bytes);
        return;
    }
    const size_t head = (16 - ((uintptr_t)d & 15)) & 15; /* streaming stores need 16-byte alignment */
    memcpy(d, s, head);
    d += head;
    s += head;
    bytes -= head;
    for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
        const __m128i v0 = _mm_loadu_si128((const __m128i *)s);
        const __m128i v1 = _mm_loadu_si128((const __m128i *)(s + 16));
        const __m128i v2 = _mm_loadu_si128((const __m128i *)(s + 32));
        const __m128i v3 = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, v0);
        _mm_stream_si128((__m128i *)(d + 16), v1);
        _mm_stream_si128((__m128i *)(d + 32), v2);
        _mm_stream_si128((__m128i *)(d + 48), v3);
    }
    memcpy(d, s, bytes);
    _mm_sfence();
}
#else
void tkhi_stream_copy(void *dst, const void *src, size_t bytes)
{
    memcpy(dst, src, bytes);
}
#endif
