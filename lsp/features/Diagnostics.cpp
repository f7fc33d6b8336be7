//===- Diagnostics.cpp - ph::Diagnostic -> LSP Diagnostic -----------------===//
//
// The messages, codes and ranges are the frontend's own values, so the
// editor shows byte-for-byte what `ph check` prints; only the positions are
// converted from byte offsets to UTF-16 columns. Notes become
// relatedInformation; fixes are offered through codeAction.
//
//===----------------------------------------------------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

#include <map>
#include <set>

namespace ph::lsp {

static int severityOf(Severity s) {
  switch (s) {
  case Severity::Error: return 1;
  case Severity::Warning: return 2;
  case Severity::Note: return 3;
  }
  return 1;
}

json toLsp(const Snapshot &s, const Diagnostic &d, const FeatureOptions &o) {
  json loc = location(s, d.range);
  json out = {{"range", loc["range"]},
              {"severity", severityOf(d.severity)},
              {"code", d.code()},
              {"source", "ph"},
              {"message", d.message}};
  if (!d.notes.empty()) {
    json related = json::array();
    for (const DiagNote &n : d.notes)
      related.push_back({{"location", location(s, n.range)}, {"message", n.message}});
    if (o.relatedInformation) {
      out["relatedInformation"] = std::move(related);
    } else {
      // Clients without relatedInformation still get the notes, in the message.
      std::string msg = d.message;
      for (const DiagNote &n : d.notes) msg += "\nnote: " + n.message;
      out["message"] = msg;
    }
  }
  if (!d.fixes.empty()) out["data"] = {{"fixes", d.fixes.size()}};
  return out;
}

std::vector<std::pair<std::string, json>> diagnostics(const Snapshot &s, const FeatureOptions &o) {
  std::vector<std::pair<std::string, json>> out;
  out.emplace_back(s.uri, json::array());
  if (!s.analysis) return out;
  const Analysis &a = *s.analysis;
  std::map<std::string, size_t> slot;
  slot[s.uri] = 0;
  for (const Diagnostic &d : a.diagnostics) {
    bool isMain = d.range.file == a.mainFile;
    if (!isMain) {
      // An error inside a std function, reached through a call in this file: show
      // it at the call (its note says so) with the same code and message, as clangd
      // shows an error of an included header at the #include. relatedInformation
      // leads to where it is in the std file.
      const DiagNote *site = nullptr;
      for (const DiagNote &n : d.notes)
        if (n.range.file == a.mainFile) {
          site = &n;
          break;
        }
      if (site) {
        json x = toLsp(s, d, o);
        x["range"] = toJson(s.lines.range(site->range.begin, site->range.end));
        json here = {{"location", location(s, d.range)}, {"message", "the error is here"}};
        if (x.contains("relatedInformation")) x["relatedInformation"].insert(x["relatedInformation"].begin(), here);
        else if (o.relatedInformation) x["relatedInformation"] = json::array({here});
        out[0].second.push_back(std::move(x));
        continue;
      }
    }
    std::string uri = isMain ? s.uri : uriOf(s, a.sources.file(d.range.file), false);
    auto [it, inserted] = slot.emplace(uri, out.size());
    if (inserted) out.emplace_back(uri, json::array());
    out[it->second].second.push_back(toLsp(s, d, o));
  }
  return out;
}

void mergeBuildDiagnostics(json &into, const json &build) {
  if (!build.is_array()) return;
  auto key = [](const json &d) {
    const json &start = d.value("range", json::object()).value("start", json::object());
    return d.value("code", std::string()) + "@" + std::to_string(start.value("line", -1));
  };
  std::set<std::string> have;
  for (const json &d : into) have.insert(key(d));
  for (json d : build) {
    if (!have.insert(key(d)).second) continue;
    d["source"] = "ph";
    into.push_back(std::move(d));
  }
}

} // namespace ph::lsp
