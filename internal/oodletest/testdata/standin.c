/* A stand-in for the game's Oodle library: the same C ABI as
   OodleLZ_Decompress, OodleLZ_Compress and
   OodleLZ_GetCompressedBufferSizeNeeded, with a trivial codec of its own
   (a 4-byte header, then the bytes with each run of zeros as 0, count). Built with -DTABLE="path",
   it also answers blocks listed in that file (records of u32 compLen,
   u32 rawLen, the compressed bytes, the raw bytes): the blocks of a real
   Oodle container, answered with its Zlib twin's bytes. Every argument
   unrmod passes is checked, so a call with the arguments out of place
   fails. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *table;
static long tableLen;

#ifdef TABLE
__attribute__((constructor)) static void load(void) {
	FILE *f = fopen(TABLE, "rb");
	if (!f) return;
	fseek(f, 0, SEEK_END);
	tableLen = ftell(f);
	fseek(f, 0, SEEK_SET);
	table = malloc(tableLen > 0 ? tableLen : 1);
	if (fread(table, 1, tableLen, f) != (size_t)tableLen) tableLen = 0;
	fclose(f);
}
#endif

static uint32_t u32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

intptr_t OodleLZ_Decompress(const void *comp, intptr_t compLen, void *raw, intptr_t rawLen, int fuzzSafe,
	int checkCRC, int verbosity, void *decBufBase, intptr_t decBufSize, void *cb, void *cbData,
	void *decMem, intptr_t decMemSize, int threadPhase) {
	const unsigned char *c = comp;
	unsigned char *r = raw;
	long off = 0;
	if (fuzzSafe != 1 || checkCRC != 0 || verbosity != 0 || decBufBase || decBufSize || cb || cbData ||
		decMem || decMemSize || threadPhase != 3 || compLen <= 0 || rawLen <= 0)
		return 0;
	while (off + 8 <= tableLen) {
		uint32_t cl = u32(table + off), rl = u32(table + off + 4);
		if (off + 8 + (long)cl + (long)rl > tableLen) break;
		if (cl == compLen && memcmp(table + off + 8, c, cl) == 0) {
			if (rl != rawLen) return 0;
			memcpy(r, table + off + 8 + cl, rl);
			return rl;
		}
		off += 8 + cl + rl;
	}
	if (compLen < 4 || c[0] != 0xA5) return 0;
	intptr_t n = 0;
	for (intptr_t i = 4; i < compLen; i++) {
		if (c[i] != 0) {
			if (n == rawLen) return 0;
			r[n++] = c[i];
			continue;
		}
		if (++i == compLen || c[i] == 0 || c[i] > rawLen - n) return 0;
		memset(r + n, 0, c[i]);
		n += c[i];
	}
	return n == rawLen ? n : 0;
}

intptr_t OodleLZ_Compress(int compressor, const void *raw, intptr_t rawLen, void *comp, int level,
	const void *options, const void *dict, const void *lrm, void *scratch, intptr_t scratchSize) {
	const unsigned char *r = raw;
	unsigned char *c = comp;
	if (compressor < 8 || compressor > 13 || level < -4 || level > 9 || options || dict || lrm || scratch ||
		scratchSize || rawLen <= 0)
		return 0;
	intptr_t n = 4;
	c[0] = 0xA5, c[1] = (unsigned char)compressor, c[2] = (unsigned char)level, c[3] = 0;
	for (intptr_t i = 0; i < rawLen;) {
		if (r[i] != 0) {
			c[n++] = r[i++];
			continue;
		}
		int run = 0;
		while (i < rawLen && r[i] == 0 && run < 255) i++, run++;
		c[n++] = 0, c[n++] = (unsigned char)run;
	}
	return n;
}

intptr_t OodleLZ_GetCompressedBufferSizeNeeded(int compressor, intptr_t rawLen) { return 2 * rawLen + 4; }
