package io.sluice.examples.spring;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.security.Principal;
import java.util.Map;

/** The endpoints the rules limit: posts, notes and reports through the filter, exports through {@link ExportService}. */
@RestController
public class ExampleController {
    private final Reports reports;
    private final ExportService exports;

    public ExampleController(Reports reports, ExportService exports) {
        this.reports = reports;
        this.exports = exports;
    }

    @GetMapping("/api/posts")
    public Map<String, String> posts() {
        return Map.of("posts", "none yet");
    }

    @GetMapping("/api/notes")
    public Map<String, String> notes(Principal user) {
        return Map.of("notes", "none yet for " + user.getName());
    }

    @GetMapping("/api/reports/{name}")
    public Map<String, String> report(@PathVariable("name") String name) throws InterruptedException {
        return Map.of("report", reports.render(name));
    }

    @GetMapping("/api/exports")
    public Map<String, String> export(@RequestParam("user") String user) {
        return Map.of("export", exports.export(user));
    }
}
