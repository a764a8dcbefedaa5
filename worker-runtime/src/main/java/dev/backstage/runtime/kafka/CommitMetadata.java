package dev.backstage.runtime.kafka;

import java.util.Arrays;
import java.util.Base64;

/**
 * Offsets settled beyond the committed position, carried in the commit's metadata string.
 *
 * <p>A commit can only say "everything below N is done". When record N is slow and N+1…N+500 finished,
 * a crash or rebalance would run those 500 again. Recording them in the commit metadata lets the next
 * owner of the partition skip them, so only records that were really unsettled are redelivered.
 *
 * <p>Format: {@code bs1:<base64url bitmap>}, where bit {@code i} (little-endian within each byte) set
 * means offset {@code committed + i} is settled. The empty string means "none" (what other clients
 * write, so a seed consumer's commit reads as "nothing beyond"). Unknown formats read as none too: at
 * worst those records run again, which at-least-once allows. The bitmap is cut to fit {@link #MAX_CHARS},
 * below the broker's default {@code offset.metadata.max.bytes} of 4096; offsets past the cut are simply
 * not recorded (they would be redelivered).
 */
public final class CommitMetadata {
    static final String PREFIX = "bs1:";
    /** Stays under the broker's default 4096-byte metadata limit, with room for the prefix. */
    static final int MAX_CHARS = 4000;

    private static final int MAX_BITMAP_BYTES = (MAX_CHARS - PREFIX.length()) / 4 * 3;

    private CommitMetadata() {}

    /** @param settledBeyond ascending offsets, each ≥ {@code committed} */
    public static String encode(long committed, long[] settledBeyond) {
        if (settledBeyond.length == 0) {
            return "";
        }
        long span = settledBeyond[settledBeyond.length - 1] - committed + 1;
        int bytes = (int) Math.min(MAX_BITMAP_BYTES, (span + 7) / 8);
        byte[] bitmap = new byte[bytes];
        boolean any = false;
        for (long offset : settledBeyond) {
            long bit = offset - committed;
            if (bit < 0) {
                throw new IllegalArgumentException(
                        "offset " + offset + " is below the committed position " + committed);
            }
            if (bit >= (long) bytes * 8) {
                break; // past what fits: those will be redelivered
            }
            bitmap[(int) (bit >>> 3)] |= (byte) (1 << (bit & 7));
            any = true;
        }
        return any ? PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bitmap) : "";
    }

    /** The settled offsets recorded in {@code metadata}, ascending; empty for anything not written by us. */
    public static long[] decode(long committed, String metadata) {
        if (metadata == null || !metadata.startsWith(PREFIX)) {
            return new long[0];
        }
        byte[] bitmap;
        try {
            bitmap = Base64.getUrlDecoder().decode(metadata.substring(PREFIX.length()));
        } catch (IllegalArgumentException notBase64) {
            return new long[0];
        }
        long[] out = new long[bitmap.length * 8];
        int n = 0;
        for (int i = 0; i < bitmap.length; i++) {
            int b = bitmap[i] & 0xff;
            for (int bit = 0; b != 0 && bit < 8; bit++) {
                if ((b & (1 << bit)) != 0) {
                    out[n++] = committed + (long) i * 8 + bit;
                }
            }
        }
        return Arrays.copyOf(out, n);
    }
}
