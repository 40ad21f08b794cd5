"""Words of the bazaar world, per language: interface words, route slugs, field labels.

Every entry is one concept in the ten languages, separated by ``|`` in the order of
``LANGS``. Route slugs are ASCII (real sites in Japanese and Chinese mostly keep
ASCII paths too).
"""

from __future__ import annotations

LANGS: tuple[str, ...] = ("en", "de", "fr", "es", "pt", "it", "nl", "pl", "ja", "zh")
#: How often a site is in each language (weights, same order as LANGS).
LANG_WEIGHTS: tuple[int, ...] = (40, 13, 10, 10, 5, 5, 5, 4, 4, 4)

_UI = """
home: Home|Startseite|Accueil|Inicio|Início|Home|Home|Strona główna|ホーム|首页
search: Search|Suchen|Rechercher|Buscar|Pesquisar|Cerca|Zoeken|Szukaj|検索|搜索
find: Find|Finden|Trouver|Encontrar|Encontrar|Trova|Vinden|Znajdź|探す|查找
advanced: Advanced search|Erweiterte Suche|Recherche avancée|Búsqueda avanzada|Pesquisa avançada|Ricerca avanzata|Uitgebreid zoeken|Wyszukiwanie zaawansowane|詳細検索|高级搜索
site_search: Search this site|Website durchsuchen|Rechercher sur le site|Buscar en el sitio|Pesquisar no site|Cerca nel sito|Zoek op de site|Szukaj w serwisie|サイト内検索|站内搜索
about: About us|Über uns|Qui sommes-nous|Quiénes somos|Sobre nós|Chi siamo|Over ons|O nas|会社概要|关于我们
contact: Contact|Kontakt|Contact|Contacto|Contato|Contatti|Contact|Kontakt|お問い合わせ|联系我们
login: Log in|Anmelden|Connexion|Iniciar sesión|Entrar|Accedi|Inloggen|Zaloguj się|ログイン|登录
password: Password|Passwort|Mot de passe|Contraseña|Senha|Password|Wachtwoord|Hasło|パスワード|密码
username: Username|Benutzername|Identifiant|Usuario|Usuário|Nome utente|Gebruikersnaam|Login|ユーザー名|用户名
email: E-mail address|E-Mail-Adresse|Adresse e-mail|Correo electrónico|E-mail|Indirizzo email|E-mailadres|Adres e-mail|メールアドレス|电子邮件
name: Your name|Ihr Name|Votre nom|Su nombre|Seu nome|Il tuo nome|Uw naam|Imię i nazwisko|お名前|姓名
message: Message|Nachricht|Message|Mensaje|Mensagem|Messaggio|Bericht|Wiadomość|メッセージ|留言
send: Send|Absenden|Envoyer|Enviar|Enviar|Invia|Verzenden|Wyślij|送信|提交
newsletter: Newsletter|Newsletter|Lettre d'information|Boletín|Newsletter|Newsletter|Nieuwsbrief|Newsletter|メールマガジン|订阅通讯
subscribe: Subscribe|Abonnieren|S'abonner|Suscribirse|Assinar|Iscriviti|Aanmelden|Zapisz się|登録する|订阅
privacy: Privacy policy|Datenschutz|Confidentialité|Privacidad|Privacidade|Privacy|Privacybeleid|Polityka prywatności|プライバシーポリシー|隐私政策
legal: Terms of use|Impressum|Mentions légales|Aviso legal|Termos de uso|Note legali|Algemene voorwaarden|Regulamin|利用規約|使用条款
sitemap: Sitemap|Sitemap|Plan du site|Mapa del sitio|Mapa do site|Mappa del sito|Sitemap|Mapa strony|サイトマップ|网站地图
next: Next|Weiter|Suivant|Siguiente|Próxima|Successivo|Volgende|Następna|次へ|下一页
prev: Previous|Zurück|Précédent|Anterior|Anterior|Precedente|Vorige|Poprzednia|前へ|上一页
next_month: Next month|Nächster Monat|Mois suivant|Mes siguiente|Próximo mês|Mese successivo|Volgende maand|Następny miesiąc|翌月|下个月
prev_month: Previous month|Vorheriger Monat|Mois précédent|Mes anterior|Mês anterior|Mese precedente|Vorige maand|Poprzedni miesiąc|前月|上个月
results: results|Treffer|résultats|resultados|resultados|risultati|resultaten|wyników|件|条结果
no_results: No results matched your search.|Leider keine Treffer für Ihre Suche.|Aucun résultat ne correspond à votre recherche.|No se encontraron resultados.|Nenhum resultado encontrado.|Nessun risultato trovato.|Geen resultaten gevonden.|Brak wyników wyszukiwania.|該当する結果はありません。|没有找到相关结果。
more: Read more|Weiterlesen|Lire la suite|Leer más|Leia mais|Leggi tutto|Lees meer|Czytaj dalej|続きを読む|阅读更多
categories: Categories|Kategorien|Catégories|Categorías|Categorias|Categorie|Categorieën|Kategorie|カテゴリー|分类
all: All|Alle|Tous|Todos|Todos|Tutti|Alle|Wszystkie|すべて|全部
any: Any|Beliebig|Indifférent|Cualquiera|Qualquer|Qualsiasi|Alle|Dowolny|指定なし|不限
sort: Sort by|Sortieren nach|Trier par|Ordenar por|Ordenar por|Ordina per|Sorteren op|Sortuj według|並び替え|排序
price: Price|Preis|Prix|Precio|Preço|Prezzo|Prijs|Cena|価格|价格
newest: Newest|Neueste|Plus récents|Más recientes|Mais recentes|Più recenti|Nieuwste|Najnowsze|新着順|最新
popular: Most popular|Beliebteste|Populaires|Más populares|Mais populares|Più popolari|Populairst|Najpopularniejsze|人気順|最热门
news: News|Aktuelles|Actualités|Noticias|Notícias|Notizie|Nieuws|Aktualności|ニュース|新闻
blog: Blog|Blog|Blog|Blog|Blog|Blog|Blog|Blog|ブログ|博客
forum: Forum|Forum|Forum|Foro|Fórum|Forum|Forum|Forum|掲示板|论坛
archive: Archive|Archiv|Archives|Archivo|Arquivo|Archivio|Archief|Archiwum|アーカイブ|归档
comment: Leave a comment|Kommentar schreiben|Laisser un commentaire|Deja un comentario|Deixe um comentário|Lascia un commento|Laat een reactie achter|Dodaj komentarz|コメントを書く|发表评论
reply: Reply|Antworten|Répondre|Responder|Responder|Rispondi|Reageren|Odpowiedz|返信|回复
topics: Topics|Themen|Sujets|Temas|Tópicos|Discussioni|Onderwerpen|Tematy|トピック|主题
posted: Posted by|Verfasst von|Publié par|Publicado por|Publicado por|Scritto da|Geplaatst door|Autor|投稿者|发布者
calendar: Calendar|Kalender|Calendrier|Calendario|Calendário|Calendario|Kalender|Kalendarz|カレンダー|日历
directory: Web directory|Webkatalog|Annuaire|Directorio web|Diretório|Directory web|Webgids|Katalog stron|リンク集|网址导航
links: Links|Links|Liens|Enlaces|Links|Link|Links|Linki|リンク|链接
visit: Visit website|Website besuchen|Visiter le site|Visitar la web|Visitar o site|Visita il sito|Bezoek website|Odwiedź stronę|サイトへ|访问网站
products: Products|Produkte|Produits|Productos|Produtos|Prodotti|Producten|Produkty|商品|产品
cart: Shopping cart|Warenkorb|Panier|Carrito|Carrinho|Carrello|Winkelwagen|Koszyk|カート|购物车
services: Services|Leistungen|Services|Servicios|Serviços|Servizi|Diensten|Usługi|サービス|服务
events: Events|Veranstaltungen|Événements|Eventos|Eventos|Eventi|Evenementen|Wydarzenia|イベント|活动
opening: Opening hours|Öffnungszeiten|Horaires|Horario|Horário|Orari|Openingstijden|Godziny otwarcia|営業時間|营业时间
welcome: Welcome|Willkommen|Bienvenue|Bienvenido|Bem-vindo|Benvenuti|Welkom|Witamy|ようこそ|欢迎
book_now: Book now|Jetzt buchen|Réserver|Reservar ahora|Reservar|Prenota ora|Nu boeken|Zarezerwuj|予約する|立即预订
availability: Check availability|Verfügbarkeit prüfen|Vérifier la disponibilité|Consultar disponibilidad|Ver disponibilidade|Verifica disponibilità|Beschikbaarheid bekijken|Sprawdź dostępność|空室状況を確認|查询空房
branches: Our locations|Unsere Standorte|Nos agences|Nuestras sedes|Nossas lojas|Le nostre sedi|Onze vestigingen|Nasze oddziały|店舗一覧|门店列表
destinations: Destinations|Reiseziele|Destinations|Destinos|Destinos|Destinazioni|Bestemmingen|Kierunki|目的地|目的地
details: Details|Details|Détails|Detalles|Detalhes|Dettagli|Details|Szczegóły|詳細|详情
request: Request an offer|Angebot anfordern|Demander un devis|Solicitar presupuesto|Pedir orçamento|Richiedi un preventivo|Offerte aanvragen|Zapytaj o ofertę|見積もり依頼|索取报价
alerts: Get alerts by e-mail|E-Mail-Benachrichtigung|Alertes par e-mail|Alertas por correo|Alertas por e-mail|Avvisi via email|E-mailalerts|Powiadomienia e-mail|メール通知|邮件提醒
partner: Our partner takes your request.|Unser Partner bearbeitet Ihre Anfrage.|Notre partenaire traite votre demande.|Nuestro socio atiende su solicitud.|Nosso parceiro atende seu pedido.|Il nostro partner gestisce la richiesta.|Onze partner verwerkt uw aanvraag.|Nasz partner obsłuży zapytanie.|提携先がご案内します。|合作伙伴将处理您的请求。
"""

_SLUGS = """
search: search,find,finder,lookup|suche,suchen,finden|recherche,rechercher,trouver|buscar,busqueda,buscador|pesquisa,busca,procurar|cerca,ricerca,trova|zoeken,zoek,vind|szukaj,wyszukiwarka,znajdz|search,kensaku|search,sousuo
advanced: advanced,advanced-search,power-search|erweitert,profisuche,detailsuche|avancee,recherche-avancee|avanzada,busqueda-avanzada|avancada,pesquisa-avancada|avanzata,ricerca-avanzata|uitgebreid,geavanceerd|zaawansowane,szczegolowe|detail,shousai|gaoji,advanced
about: about,company,who-we-are|ueber-uns,unternehmen|a-propos,qui-sommes-nous|quienes-somos,empresa|sobre,quem-somos|chi-siamo,azienda|over-ons,bedrijf|o-nas,firma|company,about|about,guanyu
contact: contact,contact-us|kontakt|contact,nous-contacter|contacto|contato,fale-conosco|contatti|contact|kontakt|contact,otoiawase|contact,lianxi
news: news,press|aktuelles,news|actualites,actus|noticias|noticias|notizie|nieuws|aktualnosci|news,topics|news,xinwen
browse: browse,catalog,list|katalog,liste,stoebern|catalogue,liste|catalogo,listado|catalogo,lista|catalogo,elenco|catalogus,overzicht|katalog,lista|list,ichiran|list,liebiao
calendar: calendar,schedule|kalender,termine|calendrier,agenda|calendario,agenda|calendario,agenda|calendario,agenda|kalender,agenda|kalendarz,terminarz|calendar,schedule|calendar,rili
branches: locations,branches,stores|standorte,filialen|agences,nos-agences|sedes,oficinas|lojas,unidades|sedi,filiali|vestigingen,locaties|oddzialy,salony|shops,tenpo|stores,mendian
destinations: destinations,places|reiseziele,orte|destinations,villes|destinos,ciudades|destinos,cidades|destinazioni,citta|bestemmingen,steden|kierunki,miasta|areas,destinations|destinations,chengshi
"""

#: Domain vocabulary: section names, nouns for titles and text, field labels.
_DOMAIN = """
airfare.section: Flights|Flüge|Vols|Vuelos|Voos|Voli|Vluchten|Loty|航空券|机票
airfare.slug: flights,airfares,fly|fluege,flug|vols,billets-avion|vuelos,billetes|voos,passagens|voli,biglietti|vluchten,tickets|loty,bilety|flights,koukuuken|flights,jipiao
airfare.noun: cheap flights|günstige Flüge|vols pas chers|vuelos baratos|passagens aéreas baratas|voli economici|goedkope vluchten|tanie loty|格安航空券|特价机票
airfare.noun2: airline tickets|Flugtickets|billets d'avion|billetes de avión|bilhetes de avião|biglietti aerei|vliegtickets|bilety lotnicze|航空チケット|飞机票
airfare.origin: From|Abflughafen|Départ de|Origen|Origem|Partenza da|Van|Skąd|出発地|出发城市
airfare.destination: To|Zielflughafen|Arrivée à|Destino|Destino|Arrivo a|Naar|Dokąd|目的地|到达城市
airfare.depart: Departure date|Hinflug|Date aller|Fecha de ida|Data de ida|Data di andata|Vertrekdatum|Data wylotu|出発日|出发日期
airfare.return: Return date|Rückflug|Date retour|Fecha de vuelta|Data de volta|Data di ritorno|Retourdatum|Data powrotu|帰国日|返回日期
airfare.passengers: Passengers|Reisende|Passagers|Pasajeros|Passageiros|Passeggeri|Reizigers|Pasażerowie|人数|乘客人数
airfare.cabin: Cabin class|Reiseklasse|Classe|Clase|Classe|Classe|Klasse|Klasa|座席クラス|舱位
airfare.oneway: One way|Nur Hinflug|Aller simple|Solo ida|Só ida|Solo andata|Enkele reis|W jedną stronę|片道|单程
airfare.roundtrip: Round trip|Hin- und Rückflug|Aller-retour|Ida y vuelta|Ida e volta|Andata e ritorno|Retour|W obie strony|往復|往返
auto.section: Used cars|Gebrauchtwagen|Voitures d'occasion|Coches de segunda mano|Carros usados|Auto usate|Occasions|Samochody używane|中古車|二手车
auto.slug: used-cars,cars,vehicles|gebrauchtwagen,fahrzeuge,autos|occasions,voitures|coches,vehiculos|carros,veiculos|auto-usate,veicoli|occasions,autos|samochody,auta|usedcar,kuruma|cars,ershouche
auto.noun: used cars for sale|Gebrauchtwagen kaufen|voitures d'occasion à vendre|coches de ocasión en venta|carros seminovos à venda|auto usate in vendita|tweedehands auto's te koop|używane samochody na sprzedaż|中古車販売|二手车出售
auto.noun2: new and used vehicles|Neu- und Gebrauchtfahrzeuge|véhicules neufs et d'occasion|vehículos nuevos y usados|veículos novos e usados|veicoli nuovi e usati|nieuwe en gebruikte auto's|pojazdy nowe i używane|新車・中古車|新车和二手车
auto.make: Make|Marke|Marque|Marca|Marca|Marca|Merk|Marka|メーカー|品牌
auto.model: Model|Modell|Modèle|Modelo|Modelo|Modello|Model|Model|車種|车型
auto.price_to: Max. price|Preis bis|Prix max.|Precio máximo|Preço até|Prezzo fino a|Prijs tot|Cena do|価格上限|最高价格
auto.year_from: First registration from|Erstzulassung ab|Année min.|Año desde|Ano a partir de|Immatricolazione da|Bouwjaar vanaf|Rok produkcji od|年式|上牌年份
auto.mileage: Mileage up to|Kilometerstand bis|Kilométrage max.|Kilómetros hasta|Quilometragem até|Chilometri fino a|Kilometerstand tot|Przebieg do|走行距離|里程
auto.zip: ZIP code|PLZ|Code postal|Código postal|CEP|CAP|Postcode|Kod pocztowy|郵便番号|邮编
auto.body: Body type|Karosserieform|Carrosserie|Carrocería|Carroceria|Carrozzeria|Carrosserie|Typ nadwozia|ボディタイプ|车身类型
book.section: Catalogue|Katalog|Catalogue|Catálogo|Catálogo|Catalogo|Catalogus|Katalog|蔵書検索|馆藏目录
book.slug: books,catalog,titles|buecher,katalog|livres,catalogue|libros,catalogo|livros,catalogo|libri,catalogo|boeken,catalogus|ksiazki,katalog|books,hon|books,tushu
book.noun: books and novels|Bücher und Romane|livres et romans|libros y novelas|livros e romances|libri e romanzi|boeken en romans|książki i powieści|本と小説|图书和小说
book.noun2: library catalogue|Bibliothekskatalog|catalogue de bibliothèque|catálogo de la biblioteca|catálogo da biblioteca|catalogo della biblioteca|bibliotheekcatalogus|katalog biblioteki|図書館の蔵書|图书馆目录
book.title: Title|Titel|Titre|Título|Título|Titolo|Titel|Tytuł|書名|书名
book.author: Author|Autor|Auteur|Autor|Autor|Autore|Auteur|Autor|著者|作者
book.isbn: ISBN|ISBN|ISBN|ISBN|ISBN|ISBN|ISBN|ISBN|ISBN|ISBN
book.publisher: Publisher|Verlag|Éditeur|Editorial|Editora|Editore|Uitgever|Wydawnictwo|出版社|出版社
book.subject: Subject|Sachgebiet|Sujet|Materia|Assunto|Soggetto|Onderwerp|Temat|分類|主题
book.keyword: Keyword|Stichwort|Mot-clé|Palabra clave|Palavra-chave|Parola chiave|Trefwoord|Słowo kluczowe|キーワード|关键词
hotel.section: Hotels|Hotels|Hôtels|Hoteles|Hotéis|Hotel|Hotels|Hotele|ホテル|酒店
hotel.slug: hotels,stay,rooms|hotels,unterkunft,zimmer|hotels,hebergement|hoteles,alojamiento|hoteis,hospedagem|hotel,alloggi|hotels,verblijf|hotele,noclegi|hotel,yado|hotels,jiudian
hotel.noun: hotel rooms|Hotelzimmer|chambres d'hôtel|habitaciones de hotel|quartos de hotel|camere d'albergo|hotelkamers|pokoje hotelowe|ホテルの客室|酒店客房
hotel.noun2: hotel booking|Hotelbuchung|réservation d'hôtel|reserva de hotel|reserva de hotel|prenotazione hotel|hotel boeken|rezerwacja hotelu|ホテル予約|酒店预订
hotel.destination: Destination|Reiseziel|Destination|Destino|Destino|Destinazione|Bestemming|Cel podróży|目的地|目的地
hotel.checkin: Check-in|Anreise|Arrivée|Entrada|Check-in|Arrivo|Aankomst|Przyjazd|チェックイン|入住日期
hotel.checkout: Check-out|Abreise|Départ|Salida|Check-out|Partenza|Vertrek|Wyjazd|チェックアウト|退房日期
hotel.rooms: Rooms|Zimmer|Chambres|Habitaciones|Quartos|Camere|Kamers|Pokoje|部屋数|房间数
hotel.guests: Guests|Personen|Voyageurs|Huéspedes|Hóspedes|Ospiti|Gasten|Goście|宿泊人数|住客人数
job.section: Jobs|Stellenangebote|Offres d'emploi|Ofertas de empleo|Vagas de emprego|Offerte di lavoro|Vacatures|Oferty pracy|求人情報|招聘职位
job.slug: jobs,careers,vacancies|jobs,stellen,karriere|emplois,offres,carrieres|empleos,ofertas,trabajo|vagas,empregos|lavoro,offerte|vacatures,banen|praca,oferty|jobs,kyujin|jobs,zhaopin
job.noun: job vacancies|offene Stellen|offres d'emploi|ofertas de trabajo|vagas de emprego|offerte di lavoro|vacatures|oferty pracy|求人|招聘信息
job.noun2: career opportunities|Karrierechancen|opportunités de carrière|oportunidades laborales|oportunidades de carreira|opportunità di carriera|carrièrekansen|możliwości kariery|キャリア|职业机会
job.keywords: Job title or keyword|Was: Jobtitel, Stichwort|Quoi : métier, mot-clé|Qué: puesto, palabra clave|Cargo ou palavra-chave|Cosa: posizione, parola chiave|Wat: functie, trefwoord|Stanowisko lub słowo kluczowe|職種・キーワード|职位或关键词
job.location: Where: city or region|Wo: Ort oder PLZ|Où : ville, région|Dónde: ciudad o provincia|Onde: cidade ou estado|Dove: città o provincia|Waar: plaats|Gdzie: miasto|勤務地|工作地点
job.category: Category|Berufsfeld|Secteur|Categoría|Área|Settore|Vakgebied|Branża|職種|职位类别
job.contract: Contract type|Anstellungsart|Type de contrat|Tipo de contrato|Tipo de contrato|Tipo di contratto|Dienstverband|Rodzaj umowy|雇用形態|工作性质
movie.section: Films|Filme|Films|Películas|Filmes|Film|Films|Filmy|映画|电影
movie.slug: movies,films,cinema|filme,kino|films,cinema|peliculas,cine|filmes,cinema|film,cinema|films,bioscoop|filmy,kino|movies,eiga|movies,dianying
movie.noun: movies and showtimes|Filme und Kinoprogramm|films et séances|películas y cartelera|filmes e sessões|film e programmazione|films en voorstellingen|filmy i repertuar|映画と上映スケジュール|电影和放映时间
movie.noun2: film database|Filmdatenbank|base de données de films|base de datos de películas|banco de dados de filmes|database di film|filmdatabase|baza filmów|映画データベース|电影数据库
movie.title: Film title|Filmtitel|Titre du film|Título de la película|Título do filme|Titolo del film|Filmtitel|Tytuł filmu|作品名|片名
movie.genre: Genre|Genre|Genre|Género|Gênero|Genere|Genre|Gatunek|ジャンル|类型
movie.year: Year|Jahr|Année|Año|Ano|Anno|Jaar|Rok|公開年|年份
movie.director: Director|Regie|Réalisateur|Director|Diretor|Regista|Regisseur|Reżyser|監督|导演
movie.date: Show date|Vorstellungstag|Date de la séance|Fecha de la función|Data da sessão|Data spettacolo|Speeldatum|Data seansu|上映日|放映日期
music.section: Music|Musik|Musique|Música|Música|Musica|Muziek|Muzyka|音楽|音乐
music.slug: music,albums,records|musik,alben,platten|musique,albums,disques|musica,discos|musica,discos|musica,dischi|muziek,albums,platen|muzyka,plyty|music,ongaku|music,yinyue
music.noun: albums and records|Alben und Schallplatten|albums et disques|discos y álbumes|álbuns e discos|album e dischi|albums en platen|albumy i płyty|アルバムとレコード|专辑和唱片
music.noun2: music catalogue|Musikkatalog|catalogue musical|catálogo musical|catálogo musical|catalogo musicale|muziekcatalogus|katalog muzyczny|音楽カタログ|音乐目录
music.artist: Artist|Interpret|Artiste|Artista|Artista|Artista|Artiest|Wykonawca|アーティスト|艺人
music.album: Album|Album|Album|Álbum|Álbum|Album|Album|Album|アルバム|专辑
music.track: Song title|Titel|Titre|Canción|Música|Brano|Nummer|Utwór|曲名|歌曲
music.genre: Genre|Genre|Genre|Género|Gênero|Genere|Genre|Gatunek|ジャンル|流派
music.label: Label|Label|Label|Sello|Gravadora|Etichetta|Label|Wytwórnia|レーベル|唱片公司
music.format: Format|Format|Format|Formato|Formato|Formato|Formaat|Nośnik|フォーマット|格式
rental.section: Car hire|Mietwagen|Location de voitures|Alquiler de coches|Aluguel de carros|Noleggio auto|Autohuur|Wynajem samochodów|レンタカー|租车
rental.slug: car-rental,car-hire,rent|mietwagen,autovermietung|location-voiture,location|alquiler-coches,alquiler|aluguel-carros,aluguel|noleggio-auto,noleggio|autohuur,huren|wynajem-aut,wypozyczalnia|rentacar,rental|zuche,rental
rental.noun: rental cars|Mietwagen|voitures de location|coches de alquiler|carros de aluguel|auto a noleggio|huurauto's|samochody do wynajęcia|レンタカー|租赁汽车
rental.noun2: car hire deals|Autovermietung|location de véhicules|alquiler de vehículos|locação de veículos|autonoleggio|autoverhuur|wypożyczalnia samochodów|レンタカー予約|汽车租赁
rental.pickup: Pick-up location|Abholort|Lieu de prise en charge|Lugar de recogida|Local de retirada|Luogo di ritiro|Ophaallocatie|Miejsce odbioru|貸出場所|取车地点
rental.dropoff: Drop-off location|Rückgabeort|Lieu de restitution|Lugar de devolución|Local de devolução|Luogo di riconsegna|Inleverlocatie|Miejsce zwrotu|返却場所|还车地点
rental.pickup_date: Pick-up date|Abholdatum|Date de départ|Fecha de recogida|Data de retirada|Data di ritiro|Ophaaldatum|Data odbioru|貸出日|取车日期
rental.return_date: Return date|Rückgabedatum|Date de retour|Fecha de devolución|Data de devolução|Data di riconsegna|Inleverdatum|Data zwrotu|返却日|还车日期
rental.age: Driver's age|Alter des Fahrers|Âge du conducteur|Edad del conductor|Idade do condutor|Età del conducente|Leeftijd bestuurder|Wiek kierowcy|運転者の年齢|驾驶员年龄
rental.car_class: Vehicle class|Fahrzeugklasse|Catégorie|Categoría de vehículo|Categoria|Categoria|Autoklasse|Klasa pojazdu|車両クラス|车型类别
"""

#: Off-topic subjects (shops, institutions, hobby sites): name and a text noun.
_OFF = """
garden: Garden|Garten|Jardin|Jardín|Jardim|Giardino|Tuin|Ogród|ガーデニング|园艺
garden.noun: garden tools and plants|Gartengeräte und Pflanzen|outils de jardin et plantes|herramientas de jardín y plantas|ferramentas de jardim e plantas|attrezzi da giardino e piante|tuingereedschap en planten|narzędzia ogrodowe i rośliny|園芸用品と植物|园艺工具和植物
electronics: Electronics|Elektronik|Électronique|Electrónica|Eletrônicos|Elettronica|Elektronica|Elektronika|家電|电子产品
electronics.noun: laptops, phones and cameras|Laptops, Handys und Kameras|ordinateurs, téléphones et appareils photo|portátiles, móviles y cámaras|notebooks, celulares e câmeras|portatili, telefoni e fotocamere|laptops, telefoons en camera's|laptopy, telefony i aparaty|パソコン、スマホ、カメラ|笔记本、手机和相机
health: Health|Gesundheit|Santé|Salud|Saúde|Salute|Gezondheid|Zdrowie|健康|健康
health.noun: dental care and health advice|Zahnpflege und Gesundheitstipps|soins dentaires et conseils santé|cuidado dental y salud|cuidados dentários e saúde|cure dentali e salute|tandzorg en gezondheid|opieka stomatologiczna i zdrowie|歯科と健康|牙科护理和健康
cooking: Cooking|Kochen|Cuisine|Cocina|Culinária|Cucina|Koken|Gotowanie|料理|烹饪
cooking.noun: recipes and restaurants|Rezepte und Restaurants|recettes et restaurants|recetas y restaurantes|receitas e restaurantes|ricette e ristoranti|recepten en restaurants|przepisy i restauracje|レシピとレストラン|食谱和餐厅
sports: Sports|Sport|Sport|Deportes|Esportes|Sport|Sport|Sport|スポーツ|体育
sports.noun: football club and training|Fußballverein und Training|club de football et entraînement|club de fútbol y entrenamiento|clube de futebol e treino|squadra di calcio e allenamenti|voetbalclub en training|klub piłkarski i treningi|サッカークラブと練習|足球俱乐部和训练
city: City hall|Rathaus|Mairie|Ayuntamiento|Prefeitura|Comune|Gemeente|Urząd miasta|市役所|市政府
city.noun: public services for citizens|Bürgerservice und Verwaltung|services aux citoyens|servicios al ciudadano|serviços ao cidadão|servizi al cittadino|dienstverlening aan burgers|usługi dla mieszkańców|市民サービス|市民服务
software: Software|Software|Logiciels|Software|Software|Software|Software|Oprogramowanie|ソフトウェア|软件
software.noun: cloud software for small business|Cloud-Software für kleine Unternehmen|logiciels cloud pour PME|software en la nube para pymes|software em nuvem para empresas|software cloud per aziende|cloudsoftware voor het mkb|oprogramowanie w chmurze dla firm|中小企業向けクラウド|面向小企业的云软件
university: University|Universität|Université|Universidad|Universidade|Università|Universiteit|Uniwersytet|大学|大学
university.noun: courses, research and campus life|Studium, Forschung und Campusleben|formations, recherche et vie étudiante|estudios, investigación y vida universitaria|cursos, pesquisa e vida no campus|corsi, ricerca e vita universitaria|opleidingen, onderzoek en studentenleven|studia, badania i życie studenckie|学部、研究、キャンパスライフ|课程、科研和校园生活
fashion: Fashion|Mode|Mode|Moda|Moda|Moda|Mode|Moda|ファッション|时尚
fashion.noun: clothing, shoes and accessories|Kleidung, Schuhe und Accessoires|vêtements, chaussures et accessoires|ropa, zapatos y accesorios|roupas, calçados e acessórios|abbigliamento, scarpe e accessori|kleding, schoenen en accessoires|odzież, buty i dodatki|服、靴、アクセサリー|服装、鞋和配饰
"""

OFF_TOPICS: tuple[str, ...] = ("garden", "electronics", "health", "cooking", "sports", "city",
                               "software", "fashion", "university")  # fmt: skip


def _table(text: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for line in text.strip().splitlines():
        key, _, rest = line.partition(": ")
        vals = rest.split("|")
        if len(vals) != len(LANGS):
            raise ValueError(f"vocab {key}: {len(vals)} languages")
        out[key] = dict(zip(LANGS, vals, strict=True))
    return out


UI = _table(_UI)
SLUGS = {k: {lang: v.split(",") for lang, v in d.items()} for k, d in _table(_SLUGS).items()}
DOMAIN = _table(_DOMAIN)
OFF = _table(_OFF)
DOMAIN_SLUGS = {k.split(".")[0]: {lang: v.split(",") for lang, v in d.items()}
                for k, d in DOMAIN.items() if k.endswith(".slug")}  # fmt: skip


def ui(key: str, lang: str) -> str:
    return UI[key][lang]


def dom(domain: str, key: str, lang: str) -> str:
    return DOMAIN[f"{domain}.{key}"][lang]


def off(topic: str, key: str, lang: str) -> str:
    return OFF[topic if key == "" else f"{topic}.{key}"][lang]
