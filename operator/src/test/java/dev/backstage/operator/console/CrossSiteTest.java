package dev.backstage.operator.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which POSTs the console takes for another site's, from the headers a browser sends. */
class CrossSiteTest {
    @Test
    void givenTheConsolesOwnOriginOrNoBrowserHeaders_whenChecked_thenThePostPasses() {
        assertEquals(Optional.empty(), CrossSite.refusal("http://127.0.0.1:8082", "127.0.0.1:8082", "same-origin"));
        assertEquals(Optional.empty(), CrossSite.refusal("https://console.example.com", "console.example.com", null));
        assertEquals(Optional.empty(), CrossSite.refusal(null, "127.0.0.1:8082", null));
    }

    @Test
    void givenAnotherSitesOriginOrFetchSite_whenChecked_thenThePostIsRefusedWithWhatToDo() {
        String refused = CrossSite.refusal("https://evil.example", "127.0.0.1:8082", null)
                .orElseThrow();
        assertTrue(
                refused.startsWith("a form from another site is refused: its Origin is not this console's"
                        + " address; open the console at its own address"),
                refused);
        assertTrue(
                CrossSite.refusal("http://127.0.0.1:8083", "127.0.0.1:8082", null)
                        .isPresent(),
                "another port");
        // An opaque origin decides nothing (tokens and the SameSite cookie still do); the browser's own marker does.
        assertEquals(Optional.empty(), CrossSite.refusal("null", "127.0.0.1:8082", null));
        assertTrue(CrossSite.refusal("null", "127.0.0.1:8082", "cross-site").isPresent());
        assertTrue(CrossSite.refusal(null, "127.0.0.1:8082", "cross-site")
                .orElseThrow()
                .contains("Sec-Fetch-Site: cross-site"));
        assertTrue(CrossSite.refusal("http://127.0.0.1:8082", "127.0.0.1:8082", "same-site")
                .isPresent());
    }
}
