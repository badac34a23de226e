package io.sluice.rule;

import java.util.Optional;

/**
 * A servlet URL pattern as in the Servlet specification: exact ({@code /a/b}), prefix ({@code /a/*}),
 * extension ({@code *.jpg}) or everything ({@code /*}). Matched against the request path inside the
 * application (servlet path plus path info), which the container has already decoded and normalised.
 *
 * <p>Immutable and thread-safe.
 */
public final class PathPattern {
    static final String EXPECTED = "servlet URL patterns such as /api/posts, /api/images/*, *.jpg or /*";

    private enum Kind { EXACT, PREFIX, EXTENSION, ALL }

    private final String text;
    private final Kind kind;
    private final String part;

    private PathPattern(String text, Kind kind, String part) {
        this.text = text;
        this.kind = kind;
        this.part = part;
    }

    public static Optional<PathPattern> parse(String raw) {
        String p = raw.trim();
        if (p.isEmpty() || p.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) return Optional.empty();
        if (p.equals("/*")) return Optional.of(new PathPattern(p, Kind.ALL, ""));
        if (p.startsWith("*.")) {
            String ext = p.substring(1);
            if (ext.length() < 2 || ext.contains("/") || ext.contains("*")) return Optional.empty();
            return Optional.of(new PathPattern(p, Kind.EXTENSION, ext));
        }
        if (!p.startsWith("/")) return Optional.empty();
        if (p.endsWith("/*")) {
            String prefix = p.substring(0, p.length() - 2);
            if (prefix.contains("*")) return Optional.empty();
            return Optional.of(new PathPattern(p, Kind.PREFIX, prefix));
        }
        if (p.contains("*")) return Optional.empty();
        return Optional.of(new PathPattern(p, Kind.EXACT, p));
    }

    /** Whether the path inside the application ({@code /api/posts/1}) matches. */
    public boolean matches(String path) {
        return switch (kind) {
            case ALL -> true;
            case EXACT -> path.equals(part);
            case PREFIX -> path.equals(part)
                    || (path.length() > part.length() && path.startsWith(part) && path.charAt(part.length()) == '/');
            // As the container maps it: the last segment ends with the extension (so /x/.jpg matches too).
            case EXTENSION -> path.endsWith(part);
        };
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathPattern other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
