// PLACEHOLDER: replaced by the real backend on its branch before landing.
#include "backends/wiredtiger_store.h"

namespace kvlab {

Status OpenWiredTigerStore(const StoreOptions&, std::unique_ptr<KvStore>*) {
  return Status::NotSupported("wiredtiger: not built in this tree");
}

}  // namespace kvlab
