//===- FileAccess.h - Which files ph-lsp may read or hand to the driver -*- C++ -*-===//
//
// A client message names files by URI, and a hostile one can name any file:
// `file:///etc/passwd`, `../../x`, `/proc/self/environ`, `/dev/zero`. The server
// reads (or lets the driver read) only what the editor already has: documents it
// has open, whose text the server holds, and regular files inside the workspace
// folders, checked after symbolic links are resolved (VS Code's workspace trust is
// the model). No Ph semantics: it lives in ph_lsp_core and is tested on its own.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace ph::lsp {

class WorkspaceFiles {
public:
  /// Replaces the folders (canonical paths are stored; a folder that does not exist is dropped).
  void setFolders(const std::vector<std::string> &paths);
  void addFolder(const std::string &path);
  void removeFolder(const std::string &path);
  std::vector<std::string> folders() const;

  /// Empty when `path` is a regular file inside a workspace folder once its
  /// symbolic links are resolved; otherwise why it is refused, for a message.
  std::string refuse(const std::string &path) const;

private:
  mutable std::mutex mu_;
  std::vector<std::string> folders_;
};

/// A `file://` URI's path, or empty for another scheme (`untitled:`, `http:`...).
std::string filePathOfUri(const std::string &uri);

} // namespace ph::lsp
