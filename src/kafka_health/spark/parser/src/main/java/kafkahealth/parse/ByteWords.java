package kafkahealth.parse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes of an array read as one long, and tests of all eight at once (SWAR: a byte's
 * high bit set where it passes), for the scans that read every byte of a record: a loop that
 * tests a byte at a time was 13 % of the tally's samples (JFR, benchmarks/tally_loop.py).
 */
final class ByteWords {
    private ByteWords() {}

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** Each byte's high bit; a one in each byte. */
    static final long HIGH = 0x8080808080808080L, ONES = 0x0101010101010101L;

    /** The eight bytes from {@code i} on (the array has them). */
    static long at(byte[] b, int i) {
        return (long) LONGS.get(b, i);
    }

    /** Some byte of {@code x} is an ASCII byte below {@code n} (0 to 128) where the result has
     * a high bit set; exact as a whole: a borrow can only come from a byte that is below. */
    static long below(long x, int n) {
        return (x - ONES * n) & ~x & HIGH;
    }

    /** Some byte of {@code x} is {@code c} where the result has a high bit set. */
    static long equal(long x, int c) {
        long y = x ^ (ONES * c);
        return (y - ONES) & ~y & HIGH;
    }

    /** Every byte is ASCII (its high bit clear). */
    static boolean isAscii(byte[] b) {
        int i = 0, n = b.length;
        long any = 0;
        for (; i + 8 <= n; i += 8) {
            any |= at(b, i);
        }
        for (; i < n; i++) {
            any |= b[i];
        }
        return (any & HIGH) == 0;
    }
}
