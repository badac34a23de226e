package io.sluice.rule;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class PathPatternTest {

    private static PathPattern p(String text) {
        return PathPattern.parse(text).orElseThrow(() -> new AssertionError("not a pattern: " + text));
    }

    @Test
    void exactMatchesOnlyThatPath() {
        PathPattern exact = p("/api/posts");
        assertThat(exact.matches("/api/posts")).isTrue();
        assertThat(exact.matches("/api/posts/")).isFalse();
        assertThat(exact.matches("/api/posts/1")).isFalse();
        assertThat(exact.matches("/api/post")).isFalse();
        assertThat(exact.matches("/api/postsX")).isFalse();
        assertThat(exact.matches("/API/posts")).isFalse();
        assertThat(exact.toString()).isEqualTo("/api/posts");
    }

    @Test
    void prefixMatchesThePathItselfAndEverythingBelow() {
        PathPattern prefix = p("/a/*");
        assertThat(prefix.matches("/a")).isTrue();
        assertThat(prefix.matches("/a/")).isTrue();
        assertThat(prefix.matches("/a/b")).isTrue();
        assertThat(prefix.matches("/a/b/c")).isTrue();
        assertThat(prefix.matches("/ab")).isFalse();
        assertThat(prefix.matches("/ab/c")).isFalse();
        assertThat(prefix.matches("/")).isFalse();
        assertThat(prefix.matches("/b/a")).isFalse();
    }

    @Test
    void deepPrefix() {
        PathPattern prefix = p("/api/images/*");
        assertThat(prefix.matches("/api/images")).isTrue();
        assertThat(prefix.matches("/api/images/1.png")).isTrue();
        assertThat(prefix.matches("/api/imagesX")).isFalse();
        assertThat(prefix.matches("/api")).isFalse();
    }

    @Test
    void extensionMatchesTheLastSegment() {
        PathPattern ext = p("*.jpg");
        assertThat(ext.matches("/x/y.jpg")).isTrue();
        assertThat(ext.matches("/y.jpg")).isTrue();
        assertThat(ext.matches("/x/y.tar.jpg")).isTrue();
        assertThat(ext.matches("/x.jpg/y")).isFalse();
        assertThat(ext.matches("/x/y.jpgx")).isFalse();
        assertThat(ext.matches("/x/yjpg")).isFalse();
        assertThat(ext.matches("/x/y.JPG")).isFalse();
        assertThat(ext.matches("/x/y.png")).isFalse();
        // As the Servlet spec and Tomcat's mapper: the extension is what follows the last segment's last '.'.
        assertThat(ext.matches("/x/.jpg")).isTrue();
        assertThat(ext.matches("/.jpg")).isTrue();
    }

    @Test
    void allMatchesEverything() {
        PathPattern all = p("/*");
        assertThat(all.matches("/")).isTrue();
        assertThat(all.matches("")).isTrue();
        assertThat(all.matches("/anything/at/all.jpg")).isTrue();
    }

    @Test
    void rootIsAnExactPattern() {
        PathPattern root = p("/");
        assertThat(root.matches("/")).isTrue();
        assertThat(root.matches("/a")).isFalse();
    }

    @Test
    void surroundingBlanksAreTrimmed() {
        assertThat(p("  /a/*  ").toString()).isEqualTo("/a/*");
        assertThat(p(" /a/* ").matches("/a/b")).isTrue();
    }

    @Test
    void equalityIsByText() {
        assertThat(p("/a/*")).isEqualTo(p(" /a/* ")).hasSameHashCodeAs(p("/a/*"));
        assertThat(p("/a/*")).isNotEqualTo(p("/a"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"api/x", "/a/*/b", "*.", "", " ", "*", "/a*", "/a/b*", "*.j/pg", "*.j*", "**.jpg", "/a b",
            "/a\tb", "/a\u007f", "a/*", "*/a", "/*/*"})
    void rejectsWhatIsNotAServletPattern(String text) {
        assertThat(PathPattern.parse(text)).isEmpty();
    }
}
