//! The MCP server: rmcp's [`ServerHandler`] over the baked [`Catalog`]. Each method hands
//! off to its surface in `cmd/`; this file only adapts them to rmcp (errors to JSON-RPC,
//! cache hints per protocol version).

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    CustomRequest, CustomResult, ErrorCode, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, PromptsCapability, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, Tool, ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::catalog::Catalog;
use crate::cmd;
use crate::cmd::errors::CatalogError;
use crate::contract::CACHE_TTL_MS;
use crate::uri;

#[derive(Clone)]
pub struct SkillpackServer {
    catalog: Catalog,
    /// Shared: over HTTP rmcp clones the server for every request.
    info: std::sync::Arc<ServerConfig>,
    /// `tools/list`, built once: definitions name real ids of the catalog in examples.
    tools: std::sync::Arc<Vec<Tool>>,
    /// How reads hand over documents' `_meta`: deferred only for a transport whose writer
    /// resolves the placeholder (stdio, see [`cmd::resources::MetaDelivery`]).
    meta_delivery: cmd::resources::MetaDelivery,
}

impl SkillpackServer {
    pub fn new(catalog: Catalog) -> Self {
        // Content never changes inside one binary: no list-changed notifications.
        let mut tools = ToolsCapability::default();
        tools.list_changed = Some(false);
        let mut prompts = PromptsCapability::default();
        prompts.list_changed = Some(false);
        let capabilities = ServerCapabilities::builder()
            .enable_completions()
            .enable_prompts_with(prompts)
            .enable_resources()
            .enable_tools_with(tools)
            // SEP-2640: skills/list, skills/get and resources/directory/read (cmd::skills).
            .enable_skills_with_directory_read()
            .build();
        let mut info = ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new(catalog.name(), catalog.server_version())
                    .with_title(format!("{} (skillpack catalog)", catalog.name()))
                    .with_description("Agent Skills and docs compiled into one binary, served read-only from memory."),
            )
            .with_instructions(instructions(&catalog));
        // Declared so that 2025-era clients may set a log level (see `set_level`).
        info.capabilities.logging = Some(Default::default());
        SkillpackServer {
            catalog,
            info: std::sync::Arc::new(info),
            tools: std::sync::Arc::new(cmd::tools::list(&catalog)),
            meta_delivery: cmd::resources::MetaDelivery::Inline,
        }
    }

    /// This server for a transport that writes documents' `_meta` itself from the
    /// placeholder reads leave (the stdio codec).
    pub fn with_meta_delivery(mut self, delivery: cmd::resources::MetaDelivery) -> Self {
        self.meta_delivery = delivery;
        self
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// A surface's error as JSON-RPC (resource-not-found for not-found codes), its repair
    /// call verified first.
    fn error_data(&self, error: CatalogError) -> ErrorData {
        cmd::tools::verify(&self.catalog, error).into_error_data(&self.catalog)
    }

    /// A surface's error as JSON-RPC `-32602` whatever its code, its repair call verified.
    fn invalid_params(&self, error: CatalogError) -> ErrorData {
        cmd::tools::verify(&self.catalog, error).into_invalid_params(&self.catalog)
    }

    fn skills_error(&self, error: cmd::skills::SkillsError) -> ErrorData {
        match error {
            cmd::skills::SkillsError::Request(error) => self.invalid_params(error),
            cmd::skills::SkillsError::Archive(error) => error,
        }
    }
}

/// What the model reads first: what is here, what is not, and where to start.
pub fn instructions(catalog: &Catalog) -> String {
    let totals = &catalog.archive().totals;
    format!(
        "{name} serves {skills} Agent Skills and {docs} markdown docs compiled into this binary \
         (fingerprint {fingerprint}). It is read-only and answers from memory: no filesystem, \
         no network, content never changes while it runs.\n\
         To answer a question without knowing where the answer is, call catalog_search \
         {{\"query\": \"the question\", \"also\": [\"1-3 rephrasings in the docs' likely \
         terms\"]}}: ranked sections with their URIs and sizes (the prompt find-skill does the \
         same for skills). A hit that carries section_text carries its whole section: if it \
         answers, answer from it and cite that hit's section_uri. Otherwise read the \
         smallest URI that answers: a hit's section_uri or chunk_uri (<document uri>#<anchor>, \
         <document uri>/chunks/<id>), whichever is smaller.\n\
         To browse instead, discover once: read {skills_index} (every skill: id, description, \
         URI) and {docs_index} (every doc), or call the tool catalog_list ({{}} for skills, \
         {{\"kind\": \"docs\"}} for docs); {capabilities} lists URI families and error codes. \
         A document's summary (catalog_read {{\"uri\": …}}) is its outline with each section's \
         size and URI. Do not bulk-load whole documents or the whole catalog; use detail \
         \"full\" only when you need a whole body. To follow a skill, use the prompt use-skill \
         or the prompt named after the skill. Errors carry did-you-mean candidates and a \
         repair call that works as given.\n\
         This is release {release}{known}.",
        release = catalog.archive().startup.release,
        known = match catalog.archive().startup.earlier_releases.to_native() {
            0 => " (the first of its chain)".to_owned(),
            n => format!(
                "; it knows {n} earlier release(s). What changed since the one you knew: the \
                 prompt whats-new (optional since), {changes} or {changes}/{{since}} (a label, \
                 fingerprint prefix or date), or catalog_list {{\"kind\": \"changes\"}}",
                changes = uri::CHANGES
            ),
        },
        name = catalog.name(),
        skills = totals.skills.to_native(),
        docs = totals.docs.to_native(),
        fingerprint = catalog.fingerprint(),
        skills_index = uri::SKILLS_INDEX,
        docs_index = uri::DOCS_INDEX,
        capabilities = uri::CAPABILITIES,
    )
}

/// Whether the peer speaks 2026-07-28 or later, where results carry cache hints.
pub fn wants_cache_hints(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

impl ServerHandler for SkillpackServer {
    fn get_info(&self) -> ServerConfig {
        (*self.info).clone()
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let mut result =
            cmd::resources::list(&self.catalog, cursor).map_err(|e| self.error_data(e))?;
        if wants_cache_hints(&context) {
            result = result
                .with_ttl_ms(CACHE_TTL_MS)
                .with_cache_scope(CacheScope::Public);
        }
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut result = ListResourceTemplatesResult::with_all_items(cmd::templates::list());
        if wants_cache_hints(&context) {
            result = result
                .with_ttl_ms(CACHE_TTL_MS)
                .with_cache_scope(CacheScope::Public);
        }
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let mut result = cmd::resources::read_with(&self.catalog, &request.uri, self.meta_delivery)
            .map_err(|e| self.error_data(e))?;
        if wants_cache_hints(&context) {
            result = result
                .with_ttl_ms(CACHE_TTL_MS)
                .with_cache_scope(CacheScope::Public);
        }
        Ok(result.into())
    }

    /// `logging/setLevel` (2025-era revisions only). skillpack has nothing to send as
    /// `notifications/message` — results and error envelopes carry everything, and its own
    /// logs go to stderr — so every level is honoured trivially. Accepting the request keeps
    /// clients that set a level when they connect working. 2026-07-28 removed the method.
    #[allow(deprecated)] // logging is deprecated (SEP-2577); 2025-era clients still use it
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if wants_cache_hints(&context) {
            return Err(ErrorData::method_not_found::<
                rmcp::model::SetLevelRequestMethod,
            >());
        }
        Ok(())
    }

    // SEP-2640 Skills extension (`cmd::skills`). Skill results carry the cache hints on
    // every protocol version: the extension defines them as required (CacheableResult).

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let result = cmd::skills::list(&self.catalog, cursor).map_err(|e| self.skills_error(e))?;
        Ok(result
            .with_ttl_ms(CACHE_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let result =
            cmd::skills::get(&self.catalog, &request.uri).map_err(|e| self.skills_error(e))?;
        Ok(result
            .with_ttl_ms(CACHE_TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let mut result =
            cmd::skills::read_directory(&self.catalog, &request.uri, request.cursor.as_deref())
                .map_err(|e| self.skills_error(e))?;
        if wants_cache_hints(&context) {
            result = result
                .with_ttl_ms(CACHE_TTL_MS)
                .with_cache_scope(CacheScope::Public);
        }
        Ok(result)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut result = ListToolsResult::with_all_items(self.tools.as_ref().clone());
        if wants_cache_hints(&context) {
            result = result
                .with_ttl_ms(CACHE_TTL_MS)
                .with_cache_scope(CacheScope::Public);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // An unknown tool: its error comes verified already.
        cmd::tools::call(&self.catalog, &request.name, request.arguments.as_ref())
            .map(Into::into)
            .map_err(|e| e.into_invalid_params(&self.catalog))
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let mut result =
            cmd::prompts::list(&self.catalog, cursor).map_err(|e| self.invalid_params(e))?;
        if wants_cache_hints(&context) {
            result = result
                .with_ttl_ms(CACHE_TTL_MS)
                .with_cache_scope(CacheScope::Public);
        }
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        cmd::prompts::get(&self.catalog, &request.name, request.arguments.as_ref())
            .map(Into::into)
            .map_err(|e| self.invalid_params(e))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        Ok(CompleteResult::new(cmd::completion::complete(
            &self.catalog,
            &request,
        )))
    }

    /// rmcp routes a request here when its method is unknown — or when it is a known
    /// method whose params are missing, which deserves `Invalid params`, not
    /// `Method not found`.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // Revision 2026-07-28 removed these methods: there they are unknown (over HTTP,
        // rmcp turns `Method not found` into a 404), whatever their params look like.
        if wants_cache_hints(&context) && REMOVED_IN_2026_07_28.contains(&request.method.as_str()) {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "Method not found: `{}` is not part of protocol revision {}; {}",
                    request.method,
                    ProtocolVersion::V_2026_07_28.as_str(),
                    if request.method == "initialize" {
                        "call `server/discover` instead, or send a 2025-era MCP-Protocol-Version"
                    } else {
                        "this revision has no replacement for it"
                    }
                ),
                None,
            ));
        }
        Err(unhandled_request(&request.method))
    }
}

/// Methods of the 2025 revisions that revision 2026-07-28 removed.
const REMOVED_IN_2026_07_28: &[&str] = &[
    "initialize",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// MCP methods that cannot be called without params.
const METHODS_WITH_PARAMS: &[&str] = &[
    "initialize",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/get",
    "tools/call",
    "completion/complete",
    "logging/setLevel",
    "skills/get",
    "resources/directory/read",
];

fn unhandled_request(method: &str) -> ErrorData {
    if METHODS_WITH_PARAMS.contains(&method) {
        ErrorData::invalid_params(
            format!(
                "Invalid params: `{method}` needs params (missing or not an object); see the method in the MCP schema"
            ),
            None,
        )
    } else {
        ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "Method not found: `{}`; this server answers the MCP methods it declares in its capabilities",
                uri::shorten(method)
            ),
            None,
        )
    }
}
