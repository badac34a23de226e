package io.sluice.spring;

import com.jayway.jsonpath.JsonPath;
import io.sluice.testing.RepositoryFiles;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata IDEs complete {@code sluice.*} from lists every global property of docs/rules.md's table
 * (which RulesReferenceTest holds to the parser's), the rules map and the filter order: no more, no fewer.
 */
class ConfigurationMetadataTest {
    private static final String METADATA = "META-INF/spring-configuration-metadata.json";
    private static final Pattern GLOBAL_ROW = Pattern.compile("^\\| `(sluice\\.[a-z.-]+)` \\|", Pattern.MULTILINE);

    @Test
    void theMetadataNamesEveryGlobalPropertyTheRulesAndTheFilterOrder() throws IOException {
        Set<String> expected = new TreeSet<>();
        Matcher m = GLOBAL_ROW.matcher(RepositoryFiles.read(Path.of("docs", "rules.md")));
        while (m.find()) expected.add(m.group(1));
        expected.add("sluice.rules");
        expected.add(SluiceAutoConfiguration.FILTER_ORDER_PROPERTY);

        List<String> names = JsonPath.read(metadata(), "$.properties[*].name");

        assertThat(names).doesNotHaveDuplicates();
        assertThat(new TreeSet<>(names)).isEqualTo(expected);
    }

    private static String metadata() throws IOException {
        try (InputStream in = ConfigurationMetadataTest.class.getClassLoader().getResourceAsStream(METADATA)) {
            assertThat(in).as(METADATA).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
