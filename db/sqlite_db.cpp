#include "db/sqlite_db.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "common/regular_file.hpp"

namespace prof {

namespace {

// SQLite opens a database's side files (<db>-journal, -wal, -shm) with a plain open(2) beside the
// db, and probes an existing -journal for a hot one on every first read. In a shared (1777)
// directory another user can plant a FIFO there, whose open blocks forever, or a symlink that
// sends SQLite's writes elsewhere. Every open SQLite's unix VFS makes therefore goes through
// this one: no symlink followed, no wait, and only a regular file kept (a directory too, which
// SQLite opens to fsync it, and /dev/urandom, its seed). A refusal reaches SQLite as a failed
// open (SQLITE_CANTOPEN), so prof refuses the database instead of hanging.
int guarded_open(const char* path, int flags, int mode) {
  const int fd = ::open(path, flags | O_NOFOLLOW | O_NONBLOCK, static_cast<mode_t>(mode));
  if (fd < 0) return fd;
  struct stat st;
  const bool allowed =
      ::fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
                                (S_ISCHR(st.st_mode) && std::strcmp(path, "/dev/urandom") == 0));
  if (!allowed) {
    ::close(fd);
    errno = kNotRegularFile;
    return -1;
  }
  if (!(flags & O_NONBLOCK)) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// A database whose directory was removed while prof writes it (`rm -rf` of the output directory
// during a run): its file is unlinked, and SQLite, which asks the VFS whether the file has moved
// before each write transaction, refuses every later write (SQLITE_READONLY_DBMOVED), so every
// call recorded so far was lost. prof's connections go on writing the open file instead, and
// the collector puts the directory back and the finished database at its name (DbWriter's
// finalize, VACUUM INTO). The file methods are the unix VFS's own, with this one control answered.
// (SQLite makes a rollback journal with its database's mode, read by stat of the database's name:
// the collector puts an empty file there meanwhile, Collector::build_once.)
sqlite3_vfs* g_unix_vfs = nullptr;  // the default (unix) VFS as SQLite made it
sqlite3_vfs g_prof_vfs;             // a copy with xOpen below, registered as the default
constexpr int kMethodTables = 4;
sqlite3_io_methods g_methods[kMethodTables];          // copies of the unix VFS's method tables
const sqlite3_io_methods* g_original[kMethodTables];  // and the tables they copy
std::atomic<int> g_method_count{0};  // entries below it are complete (release/acquire)

int (*original_file_control(const sqlite3_io_methods* ours))(sqlite3_file*, int, void*) {
  const int count = g_method_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i)
    if (&g_methods[i] == ours) return g_original[i]->xFileControl;
  return nullptr;
}

int file_control(sqlite3_file* file, int op, void* arg) {
  if (op == SQLITE_FCNTL_HAS_MOVED) {
    *static_cast<int*>(arg) = 0;  // the open file is the database, wherever its name went
    return SQLITE_OK;
  }
  return original_file_control(file->pMethods)(file, op, arg);
}

int open_file(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  const int rc = g_unix_vfs->xOpen(g_unix_vfs, name, file, flags, out_flags);
  if (rc != SQLITE_OK || !file->pMethods || !(flags & SQLITE_OPEN_MAIN_DB)) return rc;
  static std::mutex tables;  // opens are rare; the collector's builder and a report may overlap
  std::lock_guard<std::mutex> hold(tables);
  const int count = g_method_count.load(std::memory_order_relaxed);
  for (int i = 0; i < count; ++i) {
    if (g_original[i] == file->pMethods) {
      file->pMethods = &g_methods[i];
      return rc;
    }
  }
  if (count == kMethodTables || !file->pMethods->xFileControl) return rc;
  g_original[count] = file->pMethods;
  g_methods[count] = *file->pMethods;
  g_methods[count].xFileControl = file_control;
  g_method_count.store(count + 1, std::memory_order_release);
  file->pMethods = &g_methods[count];
  return rc;
}

// A rollback journal removed with its directory: its deletion at commit finds nothing to delete,
// which is what deleting it means (SQLite would fail the commit with SQLITE_IOERR_DELETE_NOENT).
int delete_file(sqlite3_vfs*, const char* name, int sync_dir) {
  const int rc = g_unix_vfs->xDelete(g_unix_vfs, name, sync_dir);
  return rc == SQLITE_IOERR_DELETE_NOENT ? SQLITE_OK : rc;
}

bool configure_sqlite() {
  // Before SQLite initializes: no memory statistics, which take a global mutex on every
  // allocation (prof never reads them).
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  // The unix VFSes share one system-call table: one replacement covers them all.
  sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  if (!(vfs && vfs->iVersion >= 3 && vfs->xSetSystemCall &&
        vfs->xSetSystemCall(vfs, "open", reinterpret_cast<sqlite3_syscall_ptr>(&guarded_open)) ==
            SQLITE_OK))
    return false;
  g_unix_vfs = vfs;
  g_prof_vfs = *vfs;
  g_prof_vfs.zName = "prof-unix";
  g_prof_vfs.xOpen = open_file;
  g_prof_vfs.xDelete = delete_file;
  return sqlite3_vfs_register(&g_prof_vfs, 1) == SQLITE_OK;
}

}  // namespace

bool sqlite_opens_guarded() {
  static const bool guarded = configure_sqlite();
  return guarded;
}

int sqlite_max_path_chars() {
  sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  return vfs ? vfs->mxPathname : 512;
}

Database::Database(const std::string& path, Mode mode) : path_(path) {
  if (!sqlite_opens_guarded())
    throw DbError(path + ": cannot guard SQLite's file opens (no unix VFS)");
  // NOMUTEX: every connection is used by one thread at a time, so SQLite's own per-call locking
  // (a quarter of the collector's time when measured) buys nothing.
  int flags = SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case Mode::kReadOnly: flags |= SQLITE_OPEN_READONLY; break;
    case Mode::kReadWrite: flags |= SQLITE_OPEN_READWRITE; break;
    case Mode::kCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
  }
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string msg = path + ": " + (db_ ? sqlite3_errmsg(db_) : "cannot open");
    sqlite3_close(db_);
    db_ = nullptr;
    throw DbError(msg);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() { sqlite3_close(db_); }

void Database::fail(std::string_view what) const {
  throw DbError(path_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

void Database::exec(std::string_view sql) {
  if (!exec_unless_busy(sql)) throw DbError(path_ + ": " + sqlite3_errmsg(db_));
}

bool Database::exec_unless_busy(std::string_view sql) {
  char* err = nullptr;
  std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return true;
  std::string msg = path_ + ": " + (err ? err : sqlite3_errmsg(db_));
  sqlite3_free(err);
  if ((rc & 0xFF) == SQLITE_BUSY) return false;
  throw DbError(msg);
}

Statement Database::prepare(std::string_view sql) { return Statement(*this, sql); }

bool Database::table_exists(std::string_view name) {
  Statement st(*this, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  st.bind(1, name);
  return st.step();
}

Statement::Statement(Database& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK)
    db.fail("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_->fail("bind");
  return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    db_->fail("bind");
  return *this;
}
Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_->fail("bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("step");
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string_view Statement::column_text(int index) const {
  auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  return text ? std::string_view(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, index)))
              : std::string_view();
}

}  // namespace prof
