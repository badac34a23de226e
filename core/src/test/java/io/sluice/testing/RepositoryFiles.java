package io.sluice.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Files of the repository itself (the docs), found from the module directory a test runs in. */
public final class RepositoryFiles {
    private RepositoryFiles() {
    }

    /** The repository's root: the nearest directory above the working directory that holds docs/rules.md. */
    public static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docs").resolve("rules.md"))) return dir;
        }
        throw new IllegalStateException("no docs/rules.md above " + Path.of("").toAbsolutePath());
    }

    /** The Markdown pages a newcomer reads: README.md, docs/*.md and examples/README.md, relative to the root. */
    public static List<Path> markdownPages() {
        Path root = root();
        List<Path> pages = new ArrayList<>();
        pages.add(Path.of("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted()
                    .forEach(p -> pages.add(root.relativize(p)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        pages.add(Path.of("examples", "README.md"));
        return pages;
    }

    public static String read(Path relative) {
        try {
            return Files.readString(root().resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
