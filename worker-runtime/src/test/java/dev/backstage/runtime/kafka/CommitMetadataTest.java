package dev.backstage.runtime.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class CommitMetadataTest {

    @Test
    void givenNoSettledOffsetsBeyondTheCommit_thenTheMetadataIsEmptyLikeOtherClientsWrite() {
        assertEquals("", CommitMetadata.encode(100, new long[0]));
        assertArrayEquals(new long[0], CommitMetadata.decode(100, ""));
    }

    @Test
    void givenSettledOffsets_whenEncodedAndDecoded_thenTheSameOffsetsComeBack() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            long committed = random.nextInt(1_000_000);
            long[] settled = LongStream.range(committed + 1, committed + 1 + random.nextInt(3000))
                    .filter(o -> random.nextInt(3) == 0)
                    .toArray();
            String metadata = CommitMetadata.encode(committed, settled);
            assertArrayEquals(settled, CommitMetadata.decode(committed, metadata));
        }
    }

    @Test
    void givenMoreOffsetsThanFit_thenTheMetadataStaysUnderTheBrokerLimitAndKeepsTheLowestOnes() {
        long[] settled = LongStream.range(1, 100_000).toArray();
        String metadata = CommitMetadata.encode(0, settled);
        assertTrue(metadata.length() <= CommitMetadata.MAX_CHARS, "length " + metadata.length());
        long[] decoded = CommitMetadata.decode(0, metadata);
        assertTrue(decoded.length > 20_000, "kept " + decoded.length);
        assertArrayEquals(LongStream.range(1, decoded.length + 1).toArray(), decoded);
    }

    @Test
    void givenForeignMetadata_thenNothingIsSkipped() {
        assertArrayEquals(new long[0], CommitMetadata.decode(5, "some other client's note"));
        assertArrayEquals(new long[0], CommitMetadata.decode(5, "bs1:***not base64***"));
        assertArrayEquals(new long[0], CommitMetadata.decode(5, null));
    }
}
