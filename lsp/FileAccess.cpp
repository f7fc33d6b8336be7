//===- FileAccess.cpp - Which files ph-lsp may read or hand to the driver --===//
#include "FileAccess.h"
#include "Protocol.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace ph::lsp {
namespace {

std::string canonicalFolder(const std::string &path) {
  std::error_code ec;
  fs::path p = fs::canonical(path, ec);
  if (ec || !fs::is_directory(p, ec)) return "";
  return p.string();
}

bool inside(const fs::path &file, const fs::path &folder) {
  auto f = file.begin(), d = folder.begin();
  for (; d != folder.end(); ++d, ++f) {
    if (d->empty()) continue; // the trailing "" of a path that ends in '/'
    if (f == file.end() || *f != *d) return false;
  }
  return true;
}

} // namespace

void WorkspaceFiles::setFolders(const std::vector<std::string> &paths) {
  std::vector<std::string> out;
  for (const auto &p : paths)
    if (std::string c = canonicalFolder(p); !c.empty() && std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  std::lock_guard<std::mutex> lock(mu_);
  folders_ = std::move(out);
}

void WorkspaceFiles::addFolder(const std::string &path) {
  std::string c = canonicalFolder(path);
  if (c.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (std::find(folders_.begin(), folders_.end(), c) == folders_.end()) folders_.push_back(c);
}

void WorkspaceFiles::removeFolder(const std::string &path) {
  std::string c = canonicalFolder(path);
  std::lock_guard<std::mutex> lock(mu_);
  folders_.erase(std::remove_if(folders_.begin(), folders_.end(), [&](const std::string &f) { return f == c || f == path; }),
                 folders_.end());
}

std::vector<std::string> WorkspaceFiles::folders() const {
  std::lock_guard<std::mutex> lock(mu_);
  return folders_;
}

std::string WorkspaceFiles::refuse(const std::string &path) const {
  if (path.empty()) return "not a file: URI";
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) return "`" + path + "` does not exist";
  if (!fs::is_regular_file(real, ec)) return "`" + path + "` is not a regular file";
  std::lock_guard<std::mutex> lock(mu_);
  if (folders_.empty()) return "`" + path + "` is not open in the editor and the server has no workspace folder";
  for (const auto &f : folders_)
    if (inside(real, fs::path(f))) return "";
  return "`" + path + "` is not open in the editor and is outside the workspace folders";
}

std::string filePathOfUri(const std::string &uri) {
  if (uri.rfind("file://", 0) != 0) return "";
  return uriToPath(uri);
}

} // namespace ph::lsp
