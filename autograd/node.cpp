// node.cpp — Node's destructor (see node.hpp).
#include "autograd/node.hpp"

namespace attnlab {

Node::~Node() {
    // Nodes this one holds the last reference to are moved onto an explicit stack
    // instead of being destroyed inside this call. The closure goes first: its
    // captured tensors are usually also in `inputs`, so dropping it frees nothing
    // and recurses nowhere; then the inputs are released one level at a time.
    std::vector<std::shared_ptr<Node>> pending;
    auto release = [&pending](Node& n) {
        n.backward = nullptr;
        for (Tensor& t : n.inputs) {
            TensorImpl* impl = t.impl();
            if (impl && t.impl_ptr().use_count() == 1 && impl->grad_fn && impl->grad_fn.use_count() == 1)
                pending.push_back(std::move(impl->grad_fn));
        }
        n.inputs.clear();
    };
    release(*this);
    while (!pending.empty()) {
        std::shared_ptr<Node> n = std::move(pending.back());
        pending.pop_back();
        release(*n);
    }  // each n dies here with nothing left to cascade
}

}  // namespace attnlab
